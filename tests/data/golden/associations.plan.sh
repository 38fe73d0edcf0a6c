# sctpbench plan: associations, repetition 1, seed 1, run id 58fffbec2b17
# clock: virtual
# RUN=$RUN is the run's results folder
mkdir -p $RUN/records $RUN/captures
modprobe -a sctp sch_netem sch_tbf veth sch_ingress cls_matchall act_gact
ip netns add sb-58fffbec-hq
ip netns add sb-58fffbec-edge
ip netns add sb-58fffbec-lab
ip netns exec sb-58fffbec-hq sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip netns exec sb-58fffbec-edge sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip netns exec sb-58fffbec-lab sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link add name wan1 netns sb-58fffbec-hq address 02:5b:c6:12:00:01 type veth peer name wan1 netns sb-58fffbec-edge address 02:5b:c6:12:00:02
ip link add name wan2 netns sb-58fffbec-hq address 02:5b:c6:12:01:01 type veth peer name wan2 netns sb-58fffbec-edge address 02:5b:c6:12:01:02
ip link add name lab1 netns sb-58fffbec-hq address 02:5b:c6:12:02:01 type veth peer name lab1 netns sb-58fffbec-lab address 02:5b:c6:12:02:02
ip link add name lab2 netns sb-58fffbec-hq address 02:5b:c6:12:03:01 type veth peer name lab2 netns sb-58fffbec-lab address 02:5b:c6:12:03:02
ip link add name lab3 netns sb-58fffbec-hq address 02:5b:c6:12:04:01 type veth peer name lab3 netns sb-58fffbec-lab address 02:5b:c6:12:04:02
ip -n sb-58fffbec-hq link set lo up
ip -n sb-58fffbec-hq addr add 198.18.0.1/24 dev wan1
ip -n sb-58fffbec-hq link set dev wan1 gso_max_segs 1 up
ip -n sb-58fffbec-hq neigh replace 198.18.0.2 lladdr 02:5b:c6:12:00:02 dev wan1 nud permanent
ip -n sb-58fffbec-hq addr add 198.18.1.1/24 dev wan2
ip -n sb-58fffbec-hq link set dev wan2 gso_max_segs 1 up
ip -n sb-58fffbec-hq neigh replace 198.18.1.2 lladdr 02:5b:c6:12:01:02 dev wan2 nud permanent
ip -n sb-58fffbec-hq addr add 198.18.2.1/24 dev lab1
ip -n sb-58fffbec-hq link set dev lab1 gso_max_segs 1 up
ip -n sb-58fffbec-hq neigh replace 198.18.2.2 lladdr 02:5b:c6:12:02:02 dev lab1 nud permanent
ip -n sb-58fffbec-hq addr add 198.18.3.1/24 dev lab2
ip -n sb-58fffbec-hq link set dev lab2 gso_max_segs 1 up
ip -n sb-58fffbec-hq neigh replace 198.18.3.2 lladdr 02:5b:c6:12:03:02 dev lab2 nud permanent
ip -n sb-58fffbec-hq addr add 198.18.4.1/24 dev lab3
ip -n sb-58fffbec-hq link set dev lab3 gso_max_segs 1 up
ip -n sb-58fffbec-hq neigh replace 198.18.4.2 lladdr 02:5b:c6:12:04:02 dev lab3 nud permanent
tc -n sb-58fffbec-hq qdisc add dev wan1 root handle 1: netem delay 10ms limit 2954
tc -n sb-58fffbec-hq qdisc add dev wan1 parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-58fffbec-hq qdisc add dev wan1 parent 10:1 handle 20: pfifo limit 1000
tc -n sb-58fffbec-hq qdisc add dev wan1 ingress
tc -n sb-58fffbec-hq qdisc add dev wan2 root handle 1: netem delay 30ms limit 6860
tc -n sb-58fffbec-hq qdisc add dev wan2 parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-58fffbec-hq qdisc add dev wan2 parent 10:1 handle 20: pfifo limit 1000
tc -n sb-58fffbec-hq qdisc add dev lab1 root handle 1: netem delay 5ms limit 1977
tc -n sb-58fffbec-hq qdisc add dev lab1 parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-58fffbec-hq qdisc add dev lab1 parent 10:1 handle 20: pfifo limit 1000
tc -n sb-58fffbec-hq qdisc add dev lab2 root handle 1: netem delay 15ms limit 3930
tc -n sb-58fffbec-hq qdisc add dev lab2 parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-58fffbec-hq qdisc add dev lab2 parent 10:1 handle 20: pfifo limit 1000
tc -n sb-58fffbec-hq qdisc add dev lab3 root handle 1: netem delay 25ms limit 5883
tc -n sb-58fffbec-hq qdisc add dev lab3 parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-58fffbec-hq qdisc add dev lab3 parent 10:1 handle 20: pfifo limit 1000
ip -n sb-58fffbec-edge link set lo up
ip -n sb-58fffbec-edge addr add 198.18.0.2/24 dev wan1
ip -n sb-58fffbec-edge link set dev wan1 gso_max_segs 1 up
ip -n sb-58fffbec-edge neigh replace 198.18.0.1 lladdr 02:5b:c6:12:00:01 dev wan1 nud permanent
ip -n sb-58fffbec-edge addr add 198.18.1.2/24 dev wan2
ip -n sb-58fffbec-edge link set dev wan2 gso_max_segs 1 up
ip -n sb-58fffbec-edge neigh replace 198.18.1.1 lladdr 02:5b:c6:12:01:01 dev wan2 nud permanent
tc -n sb-58fffbec-edge qdisc add dev wan1 root handle 1: netem delay 10ms limit 2954
tc -n sb-58fffbec-edge qdisc add dev wan1 parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-58fffbec-edge qdisc add dev wan1 parent 10:1 handle 20: pfifo limit 1000
tc -n sb-58fffbec-edge qdisc add dev wan1 ingress
tc -n sb-58fffbec-edge qdisc add dev wan2 root handle 1: netem delay 30ms limit 6860
tc -n sb-58fffbec-edge qdisc add dev wan2 parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-58fffbec-edge qdisc add dev wan2 parent 10:1 handle 20: pfifo limit 1000
ip -n sb-58fffbec-lab link set lo up
ip -n sb-58fffbec-lab addr add 198.18.2.2/24 dev lab1
ip -n sb-58fffbec-lab link set dev lab1 gso_max_segs 1 up
ip -n sb-58fffbec-lab neigh replace 198.18.2.1 lladdr 02:5b:c6:12:02:01 dev lab1 nud permanent
ip -n sb-58fffbec-lab addr add 198.18.3.2/24 dev lab2
ip -n sb-58fffbec-lab link set dev lab2 gso_max_segs 1 up
ip -n sb-58fffbec-lab neigh replace 198.18.3.1 lladdr 02:5b:c6:12:03:01 dev lab2 nud permanent
ip -n sb-58fffbec-lab addr add 198.18.4.2/24 dev lab3
ip -n sb-58fffbec-lab link set dev lab3 gso_max_segs 1 up
ip -n sb-58fffbec-lab neigh replace 198.18.4.1 lladdr 02:5b:c6:12:04:01 dev lab3 nud permanent
tc -n sb-58fffbec-lab qdisc add dev lab1 root handle 1: netem delay 5ms limit 1977
tc -n sb-58fffbec-lab qdisc add dev lab1 parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-58fffbec-lab qdisc add dev lab1 parent 10:1 handle 20: pfifo limit 1000
tc -n sb-58fffbec-lab qdisc add dev lab2 root handle 1: netem delay 15ms limit 3930
tc -n sb-58fffbec-lab qdisc add dev lab2 parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-58fffbec-lab qdisc add dev lab2 parent 10:1 handle 20: pfifo limit 1000
tc -n sb-58fffbec-lab qdisc add dev lab3 root handle 1: netem delay 25ms limit 5883
tc -n sb-58fffbec-lab qdisc add dev lab3 parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-58fffbec-lab qdisc add dev lab3 parent 10:1 handle 20: pfifo limit 1000
ip netns exec sb-58fffbec-hq sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.path_max_retrans=2 net.sctp.association_max_retrans=10 net.sctp.pf_enable=0 net.sctp.hb_interval=1000 net.sctp.sack_timeout=10
ip netns exec sb-58fffbec-edge sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.path_max_retrans=2 net.sctp.association_max_retrans=10 net.sctp.pf_enable=0 net.sctp.hb_interval=1000 net.sctp.sack_timeout=10
ip netns exec sb-58fffbec-lab sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.path_max_retrans=2 net.sctp.association_max_retrans=10 net.sctp.pf_enable=0 net.sctp.hb_interval=1000 net.sctp.sack_timeout=10
# processes: each is started once the one before printed its ready line
ip netns exec sb-58fffbec-edge /opt/sctpbench-agent server --local 198.18.0.2,198.18.1.2 --port 5000 --records "$RUN/records/ops.server.rec" --sample-interval 20 --nodelay 1 &   # ready: listening
ip netns exec sb-58fffbec-hq /opt/sctpbench-agent client --local 198.18.0.1,198.18.1.1 --peer 198.18.0.2,198.18.1.2 --port 5000 --records "$RUN/records/ops.client.rec" --size 200 --rate 50 --arrival periodic --seed 1 --duration 6000 --send-streams 1 --drain-timeout 10000 --sample-interval 20 --nodelay 1 &   # ready: ready
ip netns exec sb-58fffbec-hq /opt/sctpbench-agent server --local 198.18.0.1,198.18.1.1 --port 5001 --records "$RUN/records/back.server.rec" --sample-interval 20 --nodelay 1 &   # ready: listening
ip netns exec sb-58fffbec-edge /opt/sctpbench-agent client --local 198.18.0.2,198.18.1.2 --peer 198.18.0.1,198.18.1.1 --port 5001 --records "$RUN/records/back.client.rec" --size 400 --rate 20 --arrival periodic --seed 12210410337924996007 --duration 6000 --send-streams 1 --drain-timeout 10000 --sample-interval 20 --nodelay 1 &   # ready: ready
ip netns exec sb-58fffbec-hq /opt/sctpbench-agent server --local 198.18.2.1,198.18.3.1,198.18.4.1 --port 5000 --records "$RUN/records/sync.server.rec" --sample-interval 20 --nodelay 1 --streams 4 &   # ready: listening
ip netns exec sb-58fffbec-lab /opt/sctpbench-agent client --local 198.18.2.2,198.18.3.2,198.18.4.2 --peer 198.18.2.1,198.18.3.1,198.18.4.1 --port 5000 --records "$RUN/records/sync.client.rec" --size 200 --rate 40 --arrival periodic --seed 9863478190091308138 --duration 6000 --send-streams 2 --drain-timeout 10000 --sample-interval 20 --nodelay 1 --streams 4 &   # ready: ready
# timeline: t0 is when every process is ready
# t0+0.000s start ops: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of ops.client
# t0+0.000s start back: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of back.client
# t0+0.000s start sync: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of sync.client
# t0+3.000s fail wan1
tc -n sb-58fffbec-hq filter add dev wan1 ingress pref 1 matchall action drop
tc -n sb-58fffbec-edge filter add dev wan1 ingress pref 1 matchall action drop
