# sctpbench plan: failover, repetition 1, seed 1, run id b87888c51216
# clock: virtual
# RUN=$RUN is the run's results folder
mkdir -p $RUN/records $RUN/captures
modprobe -a sctp sch_netem sch_tbf veth sch_ingress cls_matchall act_gact
ip netns add sb-b87888c5-client
ip netns add sb-b87888c5-server
ip netns exec sb-b87888c5-client sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.default.autoconf=0 net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.default.dad_transmits=0 net.ipv6.conf.default.addr_gen_mode=1 net.ipv6.conf.default.keep_addr_on_down=1 net.ipv6.conf.default.mldv1_unsolicited_report_interval=1 net.ipv6.conf.default.mldv2_unsolicited_report_interval=1
ip netns exec sb-b87888c5-client ip6tables-legacy-restore --noflush <<'EOF'
*filter
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 131 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 132 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 143 -j DROP
COMMIT
EOF
ip netns exec sb-b87888c5-server sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.default.autoconf=0 net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.default.dad_transmits=0 net.ipv6.conf.default.addr_gen_mode=1 net.ipv6.conf.default.keep_addr_on_down=1 net.ipv6.conf.default.mldv1_unsolicited_report_interval=1 net.ipv6.conf.default.mldv2_unsolicited_report_interval=1
ip netns exec sb-b87888c5-server ip6tables-legacy-restore --noflush <<'EOF'
*filter
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 131 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 132 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 143 -j DROP
COMMIT
EOF
ip link add name primary netns sb-b87888c5-client address 02:5b:c6:12:00:01 type veth peer name primary netns sb-b87888c5-server address 02:5b:c6:12:00:02
ip link add name secondary netns sb-b87888c5-client address 02:5b:c6:12:01:01 type veth peer name secondary netns sb-b87888c5-server address 02:5b:c6:12:01:02
ip -n sb-b87888c5-client link set lo up
ip -n sb-b87888c5-client addr add 198.18.0.1/24 dev primary
ip -n sb-b87888c5-client link set dev primary gso_max_segs 1 up
ip -n sb-b87888c5-client neigh replace 198.18.0.2 lladdr 02:5b:c6:12:00:02 dev primary nud permanent
ip netns exec sb-b87888c5-client sysctl -q -w net.ipv6.conf.secondary.disable_ipv6=0
ip -n sb-b87888c5-client addr add 198.18.1.1/24 dev secondary
ip -n sb-b87888c5-client addr add 2001:2:0:1::1/64 dev secondary nodad
ip -n sb-b87888c5-client link set dev secondary gso_max_segs 1 up
ip -n sb-b87888c5-client neigh replace 198.18.1.2 lladdr 02:5b:c6:12:01:02 dev secondary nud permanent
ip -n sb-b87888c5-client neigh replace 2001:2:0:1::2 lladdr 02:5b:c6:12:01:02 dev secondary nud permanent
tc -n sb-b87888c5-client qdisc add dev primary root handle 1: netem delay 10ms limit 2954
tc -n sb-b87888c5-client qdisc add dev primary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-b87888c5-client qdisc add dev primary parent 10:1 handle 20: pfifo limit 1000
tc -n sb-b87888c5-client qdisc add dev primary ingress
tc -n sb-b87888c5-client qdisc add dev secondary root handle 1: netem delay 10ms limit 2954
tc -n sb-b87888c5-client qdisc add dev secondary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-b87888c5-client qdisc add dev secondary parent 10:1 handle 20: pfifo limit 1000
ip -n sb-b87888c5-server link set lo up
ip -n sb-b87888c5-server addr add 198.18.0.2/24 dev primary
ip -n sb-b87888c5-server link set dev primary gso_max_segs 1 up
ip -n sb-b87888c5-server neigh replace 198.18.0.1 lladdr 02:5b:c6:12:00:01 dev primary nud permanent
ip netns exec sb-b87888c5-server sysctl -q -w net.ipv6.conf.secondary.disable_ipv6=0
ip -n sb-b87888c5-server addr add 198.18.1.2/24 dev secondary
ip -n sb-b87888c5-server addr add 2001:2:0:1::2/64 dev secondary nodad
ip -n sb-b87888c5-server link set dev secondary gso_max_segs 1 up
ip -n sb-b87888c5-server neigh replace 198.18.1.1 lladdr 02:5b:c6:12:01:01 dev secondary nud permanent
ip -n sb-b87888c5-server neigh replace 2001:2:0:1::1 lladdr 02:5b:c6:12:01:01 dev secondary nud permanent
tc -n sb-b87888c5-server qdisc add dev primary root handle 1: netem delay 10ms limit 2954
tc -n sb-b87888c5-server qdisc add dev primary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-b87888c5-server qdisc add dev primary parent 10:1 handle 20: pfifo limit 1000
tc -n sb-b87888c5-server qdisc add dev primary ingress
tc -n sb-b87888c5-server qdisc add dev secondary root handle 1: netem delay 10ms limit 2954
tc -n sb-b87888c5-server qdisc add dev secondary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-b87888c5-server qdisc add dev secondary parent 10:1 handle 20: pfifo limit 1000
ip netns exec sb-b87888c5-client sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.path_max_retrans=2 net.sctp.association_max_retrans=10 net.sctp.pf_enable=0 net.sctp.hb_interval=1000 net.sctp.sack_timeout=10
ip netns exec sb-b87888c5-server sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.path_max_retrans=2 net.sctp.association_max_retrans=10 net.sctp.pf_enable=0 net.sctp.hb_interval=1000 net.sctp.sack_timeout=10
# processes: each is started once the one before printed its ready line
ip netns exec sb-b87888c5-server /opt/sctpbench-agent server --local 198.18.0.2,198.18.1.2,2001:2:0:1::2 --port 5000 --records "$RUN/records/main.server.rec" --sample-interval 20 --nodelay 1 &   # ready: listening
ip netns exec sb-b87888c5-client /opt/sctpbench-agent client --local 198.18.0.1,198.18.1.1,2001:2:0:1::1 --peer 198.18.0.2,198.18.1.2,2001:2:0:1::2 --port 5000 --records "$RUN/records/main.client.rec" --size 200 --rate 50 --arrival periodic --seed 1 --duration 9000 --send-streams 1 --drain-timeout 10000 --sample-interval 20 --nodelay 1 &   # ready: ready
# timeline: t0 is when every process is ready
# t0+0.000s start main: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of main.client
# t0+5.000s fail primary
tc -n sb-b87888c5-client filter add dev primary ingress pref 1 matchall action drop
tc -n sb-b87888c5-server filter add dev primary ingress pref 1 matchall action drop
