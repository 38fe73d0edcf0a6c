# sctpbench plan: failover-cross-family, repetition 1, seed 1, run id 617a6bd8cd74
# clock: virtual
# RUN=$RUN is the run's results folder
mkdir -p $RUN/records $RUN/captures
modprobe -a sctp sch_netem sch_tbf veth sch_ingress cls_matchall act_gact
ip netns add sb-617a6bd8-client
ip netns add sb-617a6bd8-server
ip netns add sb-617a6bd8-emu
ip netns exec sb-617a6bd8-client sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.default.autoconf=0 net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.default.dad_transmits=0 net.ipv6.conf.default.addr_gen_mode=1 net.ipv6.conf.default.keep_addr_on_down=1 net.ipv6.conf.default.mldv1_unsolicited_report_interval=1 net.ipv6.conf.default.mldv2_unsolicited_report_interval=1
ip netns exec sb-617a6bd8-client ip6tables-legacy-restore --noflush <<'EOF'
*filter
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 131 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 132 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 143 -j DROP
COMMIT
EOF
ip netns exec sb-617a6bd8-server sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.default.autoconf=0 net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.default.dad_transmits=0 net.ipv6.conf.default.addr_gen_mode=1 net.ipv6.conf.default.keep_addr_on_down=1 net.ipv6.conf.default.mldv1_unsolicited_report_interval=1 net.ipv6.conf.default.mldv2_unsolicited_report_interval=1
ip netns exec sb-617a6bd8-server ip6tables-legacy-restore --noflush <<'EOF'
*filter
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 131 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 132 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 143 -j DROP
COMMIT
EOF
ip netns exec sb-617a6bd8-emu sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.default.autoconf=0 net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.default.dad_transmits=0 net.ipv6.conf.default.addr_gen_mode=1 net.ipv6.conf.default.keep_addr_on_down=1 net.ipv6.conf.default.mldv1_unsolicited_report_interval=1 net.ipv6.conf.default.mldv2_unsolicited_report_interval=1
ip netns exec sb-617a6bd8-emu ip6tables-legacy-restore --noflush <<'EOF'
*filter
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 131 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 132 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 143 -j DROP
COMMIT
EOF
ip link add name lte netns sb-617a6bd8-client address 02:5b:c6:12:00:01 type veth peer name lte-a netns sb-617a6bd8-emu address 02:5b:c6:12:00:fe
ip link add name lte netns sb-617a6bd8-server address 02:5b:c6:12:01:02 type veth peer name lte-b netns sb-617a6bd8-emu address 02:5b:c6:12:01:fe
ip link add name wifi netns sb-617a6bd8-client address 02:5b:c6:12:02:01 type veth peer name wifi-a netns sb-617a6bd8-emu address 02:5b:c6:12:02:fe
ip link add name wifi netns sb-617a6bd8-server address 02:5b:c6:12:03:02 type veth peer name wifi-b netns sb-617a6bd8-emu address 02:5b:c6:12:03:fe
ip -n sb-617a6bd8-client link set lo up
ip -n sb-617a6bd8-client addr add 198.18.0.1/24 dev lte
ip -n sb-617a6bd8-client link set dev lte gso_max_segs 1 up
ip -n sb-617a6bd8-client neigh replace 198.18.0.254 lladdr 02:5b:c6:12:00:fe dev lte nud permanent
ip -n sb-617a6bd8-client rule add from 198.18.0.1 table 100
ip -n sb-617a6bd8-client route replace 198.18.1.0/24 via 198.18.0.254 dev lte
ip -n sb-617a6bd8-client route replace default via 198.18.0.254 dev lte table 100
ip netns exec sb-617a6bd8-client sysctl -q -w net.ipv6.conf.wifi.disable_ipv6=0
ip -n sb-617a6bd8-client addr add 2001:2:0:2::1/64 dev wifi nodad
ip -n sb-617a6bd8-client link set dev wifi gso_max_segs 1 up
ip -n sb-617a6bd8-client neigh replace 2001:2:0:2::fe lladdr 02:5b:c6:12:02:fe dev wifi nud permanent
ip -n sb-617a6bd8-client -6 rule add from 2001:2:0:2::1 table 101
ip -n sb-617a6bd8-client route replace 2001:2:0:3::/64 via 2001:2:0:2::fe dev wifi
ip -n sb-617a6bd8-client route replace ::/0 via 2001:2:0:2::fe dev wifi table 101
ip -n sb-617a6bd8-server link set lo up
ip -n sb-617a6bd8-server addr add 198.18.1.2/24 dev lte
ip -n sb-617a6bd8-server link set dev lte gso_max_segs 1 up
ip -n sb-617a6bd8-server neigh replace 198.18.1.254 lladdr 02:5b:c6:12:01:fe dev lte nud permanent
ip -n sb-617a6bd8-server rule add from 198.18.1.2 table 100
ip -n sb-617a6bd8-server route replace 198.18.0.0/24 via 198.18.1.254 dev lte
ip -n sb-617a6bd8-server route replace default via 198.18.1.254 dev lte table 100
ip netns exec sb-617a6bd8-server sysctl -q -w net.ipv6.conf.wifi.disable_ipv6=0
ip -n sb-617a6bd8-server addr add 2001:2:0:3::2/64 dev wifi nodad
ip -n sb-617a6bd8-server link set dev wifi gso_max_segs 1 up
ip -n sb-617a6bd8-server neigh replace 2001:2:0:3::fe lladdr 02:5b:c6:12:03:fe dev wifi nud permanent
ip -n sb-617a6bd8-server -6 rule add from 2001:2:0:3::2 table 101
ip -n sb-617a6bd8-server route replace 2001:2:0:2::/64 via 2001:2:0:3::fe dev wifi
ip -n sb-617a6bd8-server route replace ::/0 via 2001:2:0:3::fe dev wifi table 101
ip -n sb-617a6bd8-emu link set lo up
ip -n sb-617a6bd8-emu addr add 198.18.0.254/24 dev lte-a
ip -n sb-617a6bd8-emu link set dev lte-a gso_max_segs 1 up
ip -n sb-617a6bd8-emu addr add 198.18.1.254/24 dev lte-b
ip -n sb-617a6bd8-emu link set dev lte-b gso_max_segs 1 up
ip -n sb-617a6bd8-emu neigh replace 198.18.0.1 lladdr 02:5b:c6:12:00:01 dev lte-a nud permanent
ip -n sb-617a6bd8-emu neigh replace 198.18.1.2 lladdr 02:5b:c6:12:01:02 dev lte-b nud permanent
ip netns exec sb-617a6bd8-emu sysctl -q -w net.ipv6.conf.wifi-a.disable_ipv6=0
ip -n sb-617a6bd8-emu addr add 2001:2:0:2::fe/64 dev wifi-a nodad
ip -n sb-617a6bd8-emu link set dev wifi-a gso_max_segs 1 up
ip netns exec sb-617a6bd8-emu sysctl -q -w net.ipv6.conf.wifi-b.disable_ipv6=0
ip -n sb-617a6bd8-emu addr add 2001:2:0:3::fe/64 dev wifi-b nodad
ip -n sb-617a6bd8-emu link set dev wifi-b gso_max_segs 1 up
ip -n sb-617a6bd8-emu neigh replace 2001:2:0:2::1 lladdr 02:5b:c6:12:02:01 dev wifi-a nud permanent
ip -n sb-617a6bd8-emu neigh replace 2001:2:0:3::2 lladdr 02:5b:c6:12:03:02 dev wifi-b nud permanent
tc -n sb-617a6bd8-emu qdisc add dev lte-b root handle 1: netem delay 10ms limit 2954
tc -n sb-617a6bd8-emu qdisc add dev lte-b parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-617a6bd8-emu qdisc add dev lte-b parent 10:1 handle 20: pfifo limit 1000
tc -n sb-617a6bd8-emu qdisc add dev lte-a root handle 1: netem delay 10ms limit 2954
tc -n sb-617a6bd8-emu qdisc add dev lte-a parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-617a6bd8-emu qdisc add dev lte-a parent 10:1 handle 20: pfifo limit 1000
tc -n sb-617a6bd8-emu qdisc add dev lte-a ingress
tc -n sb-617a6bd8-emu qdisc add dev lte-b ingress
tc -n sb-617a6bd8-emu qdisc add dev wifi-b root handle 1: netem delay 10ms limit 2954
tc -n sb-617a6bd8-emu qdisc add dev wifi-b parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-617a6bd8-emu qdisc add dev wifi-b parent 10:1 handle 20: pfifo limit 1000
tc -n sb-617a6bd8-emu qdisc add dev wifi-a root handle 1: netem delay 10ms limit 2954
tc -n sb-617a6bd8-emu qdisc add dev wifi-a parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-617a6bd8-emu qdisc add dev wifi-a parent 10:1 handle 20: pfifo limit 1000
ip netns exec sb-617a6bd8-client sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.path_max_retrans=2 net.sctp.association_max_retrans=10 net.sctp.pf_enable=0 net.sctp.hb_interval=1000 net.sctp.sack_timeout=10
ip netns exec sb-617a6bd8-server sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.path_max_retrans=2 net.sctp.association_max_retrans=10 net.sctp.pf_enable=0 net.sctp.hb_interval=1000 net.sctp.sack_timeout=10
ip netns exec sb-617a6bd8-emu sysctl -q -w net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
# processes: each is started once the one before printed its ready line
ip netns exec sb-617a6bd8-client tcpdump -i lte -n --immediate-mode -U -s 65535 -w "$RUN/captures/lte-client.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-617a6bd8-server tcpdump -i lte -n --immediate-mode -U -s 65535 -w "$RUN/captures/lte-server.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-617a6bd8-client tcpdump -i wifi -n --immediate-mode -U -s 65535 -w "$RUN/captures/wifi-client.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-617a6bd8-server tcpdump -i wifi -n --immediate-mode -U -s 65535 -w "$RUN/captures/wifi-server.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-617a6bd8-server /opt/sctpbench-agent server --local 198.18.1.2,2001:2:0:3::2 --port 5000 --records "$RUN/records/main.server.rec" --sample-interval 20 --nodelay 1 &   # ready: listening
ip netns exec sb-617a6bd8-client /opt/sctpbench-agent client --local 198.18.0.1,2001:2:0:2::1 --peer 198.18.1.2,2001:2:0:3::2 --port 5000 --records "$RUN/records/main.client.rec" --size 200 --rate 50 --arrival periodic --seed 1 --duration 9000 --send-streams 1 --drain-timeout 10000 --sample-interval 20 --nodelay 1 &   # ready: ready
# timeline: t0 is when every process is ready
# t0+0.000s start main: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of main.client
# t0+5.000s fail lte
tc -n sb-617a6bd8-emu filter add dev lte-a ingress pref 1 matchall action drop
tc -n sb-617a6bd8-emu filter add dev lte-b ingress pref 1 matchall action drop
