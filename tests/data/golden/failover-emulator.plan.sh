# sctpbench plan: failover, repetition 1, seed 1, run id bb34cffdb7d9
# clock: virtual
# RUN=$RUN is the run's results folder
mkdir -p $RUN/records $RUN/captures
modprobe -a sctp sch_netem sch_tbf veth sch_ingress cls_matchall act_gact
ip netns add sb-bb34cffd-client
ip netns add sb-bb34cffd-server
ip netns add sb-bb34cffd-emu
ip netns exec sb-bb34cffd-client sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip netns exec sb-bb34cffd-server sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip netns exec sb-bb34cffd-emu sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link add name primary netns sb-bb34cffd-client address 02:5b:c6:12:00:01 type veth peer name primary-a netns sb-bb34cffd-emu address 02:5b:c6:12:00:fe
ip link add name primary netns sb-bb34cffd-server address 02:5b:c6:12:01:02 type veth peer name primary-b netns sb-bb34cffd-emu address 02:5b:c6:12:01:fe
ip link add name secondary netns sb-bb34cffd-client address 02:5b:c6:12:02:01 type veth peer name secondary-a netns sb-bb34cffd-emu address 02:5b:c6:12:02:fe
ip link add name secondary netns sb-bb34cffd-server address 02:5b:c6:12:03:02 type veth peer name secondary-b netns sb-bb34cffd-emu address 02:5b:c6:12:03:fe
ip -n sb-bb34cffd-client link set lo up
ip -n sb-bb34cffd-client addr add 198.18.0.1/24 dev primary
ip -n sb-bb34cffd-client link set dev primary gso_max_segs 1 up
ip -n sb-bb34cffd-client neigh replace 198.18.0.254 lladdr 02:5b:c6:12:00:fe dev primary nud permanent
ip -n sb-bb34cffd-client rule add from 198.18.0.1 table 100
ip -n sb-bb34cffd-client route replace 198.18.1.0/24 via 198.18.0.254 dev primary
ip -n sb-bb34cffd-client route replace default via 198.18.0.254 dev primary table 100
ip -n sb-bb34cffd-client addr add 198.18.2.1/24 dev secondary
ip -n sb-bb34cffd-client link set dev secondary gso_max_segs 1 up
ip -n sb-bb34cffd-client neigh replace 198.18.2.254 lladdr 02:5b:c6:12:02:fe dev secondary nud permanent
ip -n sb-bb34cffd-client rule add from 198.18.2.1 table 101
ip -n sb-bb34cffd-client route replace 198.18.3.0/24 via 198.18.2.254 dev secondary
ip -n sb-bb34cffd-client route replace default via 198.18.2.254 dev secondary table 101
ip -n sb-bb34cffd-server link set lo up
ip -n sb-bb34cffd-server addr add 198.18.1.2/24 dev primary
ip -n sb-bb34cffd-server link set dev primary gso_max_segs 1 up
ip -n sb-bb34cffd-server neigh replace 198.18.1.254 lladdr 02:5b:c6:12:01:fe dev primary nud permanent
ip -n sb-bb34cffd-server rule add from 198.18.1.2 table 100
ip -n sb-bb34cffd-server route replace 198.18.0.0/24 via 198.18.1.254 dev primary
ip -n sb-bb34cffd-server route replace default via 198.18.1.254 dev primary table 100
ip -n sb-bb34cffd-server addr add 198.18.3.2/24 dev secondary
ip -n sb-bb34cffd-server link set dev secondary gso_max_segs 1 up
ip -n sb-bb34cffd-server neigh replace 198.18.3.254 lladdr 02:5b:c6:12:03:fe dev secondary nud permanent
ip -n sb-bb34cffd-server rule add from 198.18.3.2 table 101
ip -n sb-bb34cffd-server route replace 198.18.2.0/24 via 198.18.3.254 dev secondary
ip -n sb-bb34cffd-server route replace default via 198.18.3.254 dev secondary table 101
ip -n sb-bb34cffd-emu link set lo up
ip -n sb-bb34cffd-emu addr add 198.18.0.254/24 dev primary-a
ip -n sb-bb34cffd-emu link set dev primary-a gso_max_segs 1 up
ip -n sb-bb34cffd-emu addr add 198.18.1.254/24 dev primary-b
ip -n sb-bb34cffd-emu link set dev primary-b gso_max_segs 1 up
ip -n sb-bb34cffd-emu neigh replace 198.18.0.1 lladdr 02:5b:c6:12:00:01 dev primary-a nud permanent
ip -n sb-bb34cffd-emu neigh replace 198.18.1.2 lladdr 02:5b:c6:12:01:02 dev primary-b nud permanent
ip -n sb-bb34cffd-emu addr add 198.18.2.254/24 dev secondary-a
ip -n sb-bb34cffd-emu link set dev secondary-a gso_max_segs 1 up
ip -n sb-bb34cffd-emu addr add 198.18.3.254/24 dev secondary-b
ip -n sb-bb34cffd-emu link set dev secondary-b gso_max_segs 1 up
ip -n sb-bb34cffd-emu neigh replace 198.18.2.1 lladdr 02:5b:c6:12:02:01 dev secondary-a nud permanent
ip -n sb-bb34cffd-emu neigh replace 198.18.3.2 lladdr 02:5b:c6:12:03:02 dev secondary-b nud permanent
tc -n sb-bb34cffd-emu qdisc add dev primary-b root handle 1: netem delay 10ms limit 2954
tc -n sb-bb34cffd-emu qdisc add dev primary-b parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-bb34cffd-emu qdisc add dev primary-b parent 10:1 handle 20: pfifo limit 1000
tc -n sb-bb34cffd-emu qdisc add dev primary-a root handle 1: netem delay 10ms limit 2954
tc -n sb-bb34cffd-emu qdisc add dev primary-a parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-bb34cffd-emu qdisc add dev primary-a parent 10:1 handle 20: pfifo limit 1000
tc -n sb-bb34cffd-emu qdisc add dev primary-a ingress
tc -n sb-bb34cffd-emu qdisc add dev primary-b ingress
tc -n sb-bb34cffd-emu qdisc add dev secondary-b root handle 1: netem delay 10ms limit 2954
tc -n sb-bb34cffd-emu qdisc add dev secondary-b parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-bb34cffd-emu qdisc add dev secondary-b parent 10:1 handle 20: pfifo limit 1000
tc -n sb-bb34cffd-emu qdisc add dev secondary-a root handle 1: netem delay 10ms limit 2954
tc -n sb-bb34cffd-emu qdisc add dev secondary-a parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-bb34cffd-emu qdisc add dev secondary-a parent 10:1 handle 20: pfifo limit 1000
ip netns exec sb-bb34cffd-client sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.path_max_retrans=2 net.sctp.association_max_retrans=10 net.sctp.pf_enable=0 net.sctp.hb_interval=1000 net.sctp.sack_timeout=10
ip netns exec sb-bb34cffd-server sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.path_max_retrans=2 net.sctp.association_max_retrans=10 net.sctp.pf_enable=0 net.sctp.hb_interval=1000 net.sctp.sack_timeout=10
ip netns exec sb-bb34cffd-emu sysctl -q -w net.ipv4.ip_forward=1
# processes: each is started once the one before printed its ready line
ip netns exec sb-bb34cffd-client tcpdump -i primary -n --immediate-mode -U -s 65535 -w "$RUN/captures/primary-client.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-bb34cffd-server tcpdump -i primary -n --immediate-mode -U -s 65535 -w "$RUN/captures/primary-server.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-bb34cffd-client tcpdump -i secondary -n --immediate-mode -U -s 65535 -w "$RUN/captures/secondary-client.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-bb34cffd-server tcpdump -i secondary -n --immediate-mode -U -s 65535 -w "$RUN/captures/secondary-server.pcap" &   # ready: tcpdump: listening on
ip netns exec sb-bb34cffd-server /opt/sctpbench-agent server --local 198.18.1.2,198.18.3.2 --port 5000 --records "$RUN/records/main.server.rec" --sample-interval 20 --nodelay 1 &   # ready: listening
ip netns exec sb-bb34cffd-client /opt/sctpbench-agent client --local 198.18.0.1,198.18.2.1 --peer 198.18.1.2,198.18.3.2 --port 5000 --records "$RUN/records/main.client.rec" --size 200 --rate 50 --arrival periodic --seed 1 --duration 9000 --send-streams 1 --drain-timeout 10000 --sample-interval 20 --nodelay 1 &   # ready: ready
# timeline: t0 is when every process is ready
# t0+0.000s start main: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of main.client
# t0+5.000s fail primary
tc -n sb-bb34cffd-emu filter add dev primary-a ingress pref 1 matchall action drop
tc -n sb-bb34cffd-emu filter add dev primary-b ingress pref 1 matchall action drop
