# sctpbench plan: drop-pattern, repetition 1, seed 1, run id 6e2576df75b2
# clock: virtual
# RUN=$RUN is the run's results folder
mkdir -p $RUN/records $RUN/captures
modprobe -a sctp sch_netem sch_tbf veth sch_ingress cls_matchall act_gact
ip netns add sb-6e2576df-client
ip netns add sb-6e2576df-server
ip netns add sb-6e2576df-emu
ip netns exec sb-6e2576df-client sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.default.autoconf=0 net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.default.dad_transmits=0 net.ipv6.conf.default.addr_gen_mode=1 net.ipv6.conf.default.keep_addr_on_down=1 net.ipv6.conf.default.mldv1_unsolicited_report_interval=1 net.ipv6.conf.default.mldv2_unsolicited_report_interval=1
ip netns exec sb-6e2576df-client ip6tables-legacy-restore --noflush <<'EOF'
*filter
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 131 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 132 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 143 -j DROP
COMMIT
EOF
ip netns exec sb-6e2576df-server sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.default.autoconf=0 net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.default.dad_transmits=0 net.ipv6.conf.default.addr_gen_mode=1 net.ipv6.conf.default.keep_addr_on_down=1 net.ipv6.conf.default.mldv1_unsolicited_report_interval=1 net.ipv6.conf.default.mldv2_unsolicited_report_interval=1
ip netns exec sb-6e2576df-server ip6tables-legacy-restore --noflush <<'EOF'
*filter
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 131 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 132 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 143 -j DROP
COMMIT
EOF
ip netns exec sb-6e2576df-emu sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.default.autoconf=0 net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.default.dad_transmits=0 net.ipv6.conf.default.addr_gen_mode=1 net.ipv6.conf.default.keep_addr_on_down=1 net.ipv6.conf.default.mldv1_unsolicited_report_interval=1 net.ipv6.conf.default.mldv2_unsolicited_report_interval=1
ip netns exec sb-6e2576df-emu ip6tables-legacy-restore --noflush <<'EOF'
*filter
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 131 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 132 -j DROP
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 143 -j DROP
COMMIT
EOF
ip link add name primary netns sb-6e2576df-client address 02:5b:c6:12:00:01 type veth peer name primary-a netns sb-6e2576df-emu address 02:5b:c6:12:00:fe
ip link add name primary netns sb-6e2576df-server address 02:5b:c6:12:01:02 type veth peer name primary-b netns sb-6e2576df-emu address 02:5b:c6:12:01:fe
ip link add name secondary netns sb-6e2576df-client address 02:5b:c6:12:02:01 type veth peer name secondary-a netns sb-6e2576df-emu address 02:5b:c6:12:02:fe
ip link add name secondary netns sb-6e2576df-server address 02:5b:c6:12:03:02 type veth peer name secondary-b netns sb-6e2576df-emu address 02:5b:c6:12:03:fe
ip -n sb-6e2576df-client link set lo up
ip netns exec sb-6e2576df-client sysctl -q -w net.ipv6.conf.primary.disable_ipv6=0
ip -n sb-6e2576df-client addr add 198.18.0.1/24 dev primary
ip -n sb-6e2576df-client addr add 2001:2::1/64 dev primary nodad
ip -n sb-6e2576df-client link set dev primary gso_max_segs 1 up
ip -n sb-6e2576df-client neigh replace 198.18.0.254 lladdr 02:5b:c6:12:00:fe dev primary nud permanent
ip -n sb-6e2576df-client neigh replace 2001:2::fe lladdr 02:5b:c6:12:00:fe dev primary nud permanent
ip -n sb-6e2576df-client rule add from 198.18.0.1 table 100
ip -n sb-6e2576df-client route replace 198.18.1.0/24 via 198.18.0.254 dev primary
ip -n sb-6e2576df-client route replace default via 198.18.0.254 dev primary table 100
ip -n sb-6e2576df-client -6 rule add from 2001:2::1 table 100
ip -n sb-6e2576df-client route replace 2001:2:0:1::/64 via 2001:2::fe dev primary
ip -n sb-6e2576df-client route replace ::/0 via 2001:2::fe dev primary table 100
ip -n sb-6e2576df-client addr add 198.18.2.1/24 dev secondary
ip -n sb-6e2576df-client link set dev secondary gso_max_segs 1 up
ip -n sb-6e2576df-client neigh replace 198.18.2.254 lladdr 02:5b:c6:12:02:fe dev secondary nud permanent
ip -n sb-6e2576df-client rule add from 198.18.2.1 table 101
ip -n sb-6e2576df-client route replace 198.18.3.0/24 via 198.18.2.254 dev secondary
ip -n sb-6e2576df-client route replace default via 198.18.2.254 dev secondary table 101
ip -n sb-6e2576df-server link set lo up
ip netns exec sb-6e2576df-server sysctl -q -w net.ipv6.conf.primary.disable_ipv6=0
ip -n sb-6e2576df-server addr add 198.18.1.2/24 dev primary
ip -n sb-6e2576df-server addr add 2001:2:0:1::2/64 dev primary nodad
ip -n sb-6e2576df-server link set dev primary gso_max_segs 1 up
ip -n sb-6e2576df-server neigh replace 198.18.1.254 lladdr 02:5b:c6:12:01:fe dev primary nud permanent
ip -n sb-6e2576df-server neigh replace 2001:2:0:1::fe lladdr 02:5b:c6:12:01:fe dev primary nud permanent
ip -n sb-6e2576df-server rule add from 198.18.1.2 table 100
ip -n sb-6e2576df-server route replace 198.18.0.0/24 via 198.18.1.254 dev primary
ip -n sb-6e2576df-server route replace default via 198.18.1.254 dev primary table 100
ip -n sb-6e2576df-server -6 rule add from 2001:2:0:1::2 table 100
ip -n sb-6e2576df-server route replace 2001:2::/64 via 2001:2:0:1::fe dev primary
ip -n sb-6e2576df-server route replace ::/0 via 2001:2:0:1::fe dev primary table 100
ip -n sb-6e2576df-server addr add 198.18.3.2/24 dev secondary
ip -n sb-6e2576df-server link set dev secondary gso_max_segs 1 up
ip -n sb-6e2576df-server neigh replace 198.18.3.254 lladdr 02:5b:c6:12:03:fe dev secondary nud permanent
ip -n sb-6e2576df-server rule add from 198.18.3.2 table 101
ip -n sb-6e2576df-server route replace 198.18.2.0/24 via 198.18.3.254 dev secondary
ip -n sb-6e2576df-server route replace default via 198.18.3.254 dev secondary table 101
ip -n sb-6e2576df-emu link set lo up
ip netns exec sb-6e2576df-emu sysctl -q -w net.ipv6.conf.primary-a.disable_ipv6=0
ip -n sb-6e2576df-emu addr add 198.18.0.254/24 dev primary-a
ip -n sb-6e2576df-emu addr add 2001:2::fe/64 dev primary-a nodad
ip -n sb-6e2576df-emu link set dev primary-a gso_max_segs 1 up
ip netns exec sb-6e2576df-emu sysctl -q -w net.ipv6.conf.primary-b.disable_ipv6=0
ip -n sb-6e2576df-emu addr add 198.18.1.254/24 dev primary-b
ip -n sb-6e2576df-emu addr add 2001:2:0:1::fe/64 dev primary-b nodad
ip -n sb-6e2576df-emu link set dev primary-b gso_max_segs 1 up
ip -n sb-6e2576df-emu neigh replace 198.18.0.1 lladdr 02:5b:c6:12:00:01 dev primary-a nud permanent
ip -n sb-6e2576df-emu neigh replace 2001:2::1 lladdr 02:5b:c6:12:00:01 dev primary-a nud permanent
ip -n sb-6e2576df-emu neigh replace 198.18.1.2 lladdr 02:5b:c6:12:01:02 dev primary-b nud permanent
ip -n sb-6e2576df-emu neigh replace 2001:2:0:1::2 lladdr 02:5b:c6:12:01:02 dev primary-b nud permanent
ip -n sb-6e2576df-emu addr add 198.18.2.254/24 dev secondary-a
ip -n sb-6e2576df-emu link set dev secondary-a gso_max_segs 1 up
ip -n sb-6e2576df-emu addr add 198.18.3.254/24 dev secondary-b
ip -n sb-6e2576df-emu link set dev secondary-b gso_max_segs 1 up
ip -n sb-6e2576df-emu neigh replace 198.18.2.1 lladdr 02:5b:c6:12:02:01 dev secondary-a nud permanent
ip -n sb-6e2576df-emu neigh replace 198.18.3.2 lladdr 02:5b:c6:12:03:02 dev secondary-b nud permanent
tc -n sb-6e2576df-emu qdisc add dev primary-b root handle 1: netem delay 10ms limit 2954
tc -n sb-6e2576df-emu qdisc add dev primary-b parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-6e2576df-emu qdisc add dev primary-b parent 10:1 handle 20: pfifo limit 1000
tc -n sb-6e2576df-emu qdisc add dev primary-a root handle 1: netem delay 10ms limit 2954
tc -n sb-6e2576df-emu qdisc add dev primary-a parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-6e2576df-emu qdisc add dev primary-a parent 10:1 handle 20: pfifo limit 1000
tc -n sb-6e2576df-emu qdisc add dev secondary-b root handle 1: netem delay 10ms limit 2954
tc -n sb-6e2576df-emu qdisc add dev secondary-b parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-6e2576df-emu qdisc add dev secondary-b parent 10:1 handle 20: pfifo limit 1000
tc -n sb-6e2576df-emu qdisc add dev secondary-a root handle 1: netem delay 10ms limit 2954
tc -n sb-6e2576df-emu qdisc add dev secondary-a parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-6e2576df-emu qdisc add dev secondary-a parent 10:1 handle 20: pfifo limit 1000
ip netns exec sb-6e2576df-client sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.sack_timeout=10 net.sctp.pf_expose=2
ip netns exec sb-6e2576df-server sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.sack_timeout=10 net.sctp.pf_expose=2
ip netns exec sb-6e2576df-emu sysctl -q -w net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
ip netns exec sb-6e2576df-emu iptables-legacy-restore --noflush <<'EOF'
*filter
:sb-primary-for - [0:0]
-A FORWARD -i primary-a -j sb-primary-for
-A sb-primary-for -p sctp -m sctp --chunk-types any DATA -m statistic --mode nth --every 2147483647 --packet 4 -j MARK --set-mark 0x5b
-A sb-primary-for -p sctp -m sctp --chunk-types any DATA -m statistic --mode nth --every 2147483647 --packet 9 -j MARK --set-mark 0x5b
-A sb-primary-for -p sctp -m sctp --chunk-types any DATA -m statistic --mode nth --every 2147483647 --packet 10 -j MARK --set-mark 0x5b
-A sb-primary-for -p sctp -m sctp --chunk-types any DATA -m statistic --mode nth --every 2147483647 --packet 11 -j MARK --set-mark 0x5b
-A sb-primary-for -p sctp -m sctp --chunk-types any DATA -m statistic --mode nth --every 2147483647 --packet 39 -j MARK --set-mark 0x5b
-A sb-primary-for -m mark --mark 0x5b -j DROP
COMMIT
EOF
ip netns exec sb-6e2576df-emu ip6tables-legacy-restore --noflush <<'EOF'
*filter
:sb-primary-for - [0:0]
-A FORWARD -i primary-a -j sb-primary-for
-A sb-primary-for -p sctp -m sctp --chunk-types any DATA -m statistic --mode nth --every 2147483647 --packet 4 -j MARK --set-mark 0x5b
-A sb-primary-for -p sctp -m sctp --chunk-types any DATA -m statistic --mode nth --every 2147483647 --packet 9 -j MARK --set-mark 0x5b
-A sb-primary-for -p sctp -m sctp --chunk-types any DATA -m statistic --mode nth --every 2147483647 --packet 10 -j MARK --set-mark 0x5b
-A sb-primary-for -p sctp -m sctp --chunk-types any DATA -m statistic --mode nth --every 2147483647 --packet 11 -j MARK --set-mark 0x5b
-A sb-primary-for -p sctp -m sctp --chunk-types any DATA -m statistic --mode nth --every 2147483647 --packet 39 -j MARK --set-mark 0x5b
-A sb-primary-for -m mark --mark 0x5b -j DROP
COMMIT
EOF
# processes: each is started once the one before printed its ready line
ip netns exec sb-6e2576df-client tcpdump -i primary -n --immediate-mode -U -s 65535 -w "$RUN/captures/primary-client.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-6e2576df-server tcpdump -i primary -n --immediate-mode -U -s 65535 -w "$RUN/captures/primary-server.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-6e2576df-client tcpdump -i secondary -n --immediate-mode -U -s 65535 -w "$RUN/captures/secondary-client.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-6e2576df-server tcpdump -i secondary -n --immediate-mode -U -s 65535 -w "$RUN/captures/secondary-server.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-6e2576df-server /opt/sctpbench-agent server --local 198.18.1.2,2001:2:0:1::2,198.18.3.2 --port 5000 --records "$RUN/records/main.server.rec" --sample-interval 20 --nodelay 1 &   # ready: listening
ip netns exec sb-6e2576df-client /opt/sctpbench-agent client --local 198.18.0.1,2001:2::1,198.18.2.1 --peer 198.18.1.2,2001:2:0:1::2,198.18.3.2 --port 5000 --records "$RUN/records/main.client.rec" --size 200 --rate 50 --arrival periodic --seed 1 --duration 3000 --send-streams 1 --drain-timeout 10000 --sample-interval 20 --nodelay 1 &   # ready: ready
# timeline: t0 is when every process is ready
# t0+0.000s start main: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of main.client
