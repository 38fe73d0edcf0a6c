# sctpbench plan: competing-tcp, repetition 1, seed 1, run id 3614a8d77842
# clock: virtual
# RUN=$RUN is the run's results folder
mkdir -p $RUN/records $RUN/captures $RUN/traffic
modprobe -a sctp sch_netem sch_tbf veth sch_ingress cls_matchall act_gact
ip netns add sb-3614a8d7-a
ip netns add sb-3614a8d7-b
ip netns exec sb-3614a8d7-a sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip netns exec sb-3614a8d7-b sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link add name bottleneck netns sb-3614a8d7-a address 02:5b:c6:12:00:01 type veth peer name bottleneck netns sb-3614a8d7-b address 02:5b:c6:12:00:02
ip link add name side netns sb-3614a8d7-a address 02:5b:c6:12:01:01 type veth peer name side netns sb-3614a8d7-b address 02:5b:c6:12:01:02
ip -n sb-3614a8d7-a link set lo up
ip -n sb-3614a8d7-a addr add 198.18.0.1/24 dev bottleneck
ip -n sb-3614a8d7-a link set dev bottleneck gso_max_segs 1 up
ip -n sb-3614a8d7-a neigh replace 198.18.0.2 lladdr 02:5b:c6:12:00:02 dev bottleneck nud permanent
ip -n sb-3614a8d7-a addr add 198.18.1.1/24 dev side
ip -n sb-3614a8d7-a link set dev side gso_max_segs 1 up
ip -n sb-3614a8d7-a neigh replace 198.18.1.2 lladdr 02:5b:c6:12:01:02 dev side nud permanent
tc -n sb-3614a8d7-a qdisc add dev bottleneck root handle 1: netem delay 20ms limit 1391
tc -n sb-3614a8d7-a qdisc add dev bottleneck parent 1:1 handle 10: tbf rate 10mbit burst 3028 limit 50000
tc -n sb-3614a8d7-a qdisc add dev bottleneck parent 10:1 handle 20: bfifo limit 50000
tc -n sb-3614a8d7-a qdisc add dev side root handle 1: netem delay 20ms limit 1391
tc -n sb-3614a8d7-a qdisc add dev side parent 1:1 handle 10: tbf rate 10mbit burst 3028 limit 50000
tc -n sb-3614a8d7-a qdisc add dev side parent 10:1 handle 20: bfifo limit 50000
ip -n sb-3614a8d7-b link set lo up
ip -n sb-3614a8d7-b addr add 198.18.0.2/24 dev bottleneck
ip -n sb-3614a8d7-b link set dev bottleneck gso_max_segs 1 up
ip -n sb-3614a8d7-b neigh replace 198.18.0.1 lladdr 02:5b:c6:12:00:01 dev bottleneck nud permanent
ip -n sb-3614a8d7-b addr add 198.18.1.2/24 dev side
ip -n sb-3614a8d7-b link set dev side gso_max_segs 1 up
ip -n sb-3614a8d7-b neigh replace 198.18.1.1 lladdr 02:5b:c6:12:01:01 dev side nud permanent
tc -n sb-3614a8d7-b qdisc add dev bottleneck root handle 1: netem delay 20ms limit 1391
tc -n sb-3614a8d7-b qdisc add dev bottleneck parent 1:1 handle 10: tbf rate 10mbit burst 3028 limit 50000
tc -n sb-3614a8d7-b qdisc add dev bottleneck parent 10:1 handle 20: bfifo limit 50000
tc -n sb-3614a8d7-b qdisc add dev side root handle 1: netem delay 20ms limit 1391
tc -n sb-3614a8d7-b qdisc add dev side parent 1:1 handle 10: tbf rate 10mbit burst 3028 limit 50000
tc -n sb-3614a8d7-b qdisc add dev side parent 10:1 handle 20: bfifo limit 50000
ip netns exec sb-3614a8d7-a sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_initial=200 net.sctp.sack_timeout=10 net.sctp.pf_expose=2
ip netns exec sb-3614a8d7-b sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_initial=200 net.sctp.sack_timeout=10 net.sctp.pf_expose=2
# processes: each is started once the one before printed its ready line
ip netns exec sb-3614a8d7-b /opt/sctpbench-agent server --local 198.18.0.2,198.18.1.2 --port 5000 --records "$RUN/records/main.server.rec" --sample-interval 20 --nodelay 1 &   # ready: listening
ip netns exec sb-3614a8d7-a /opt/sctpbench-agent client --local 198.18.0.1,198.18.1.1 --peer 198.18.0.2,198.18.1.2 --port 5000 --records "$RUN/records/main.client.rec" --size 200 --rate 20 --arrival periodic --seed 1 --duration 10000 --send-streams 1 --drain-timeout 10000 --sample-interval 20 --nodelay 1 &   # ready: ready
ip netns exec sb-3614a8d7-b iperf3 -s -1 -B 198.18.0.2 -p 5201 --forceflush &   # ready: Server listening
ip netns exec sb-3614a8d7-b iperf3 -s -1 -B 198.18.0.2 -p 5202 --forceflush &   # ready: Server listening
ip netns exec sb-3614a8d7-b sctpbench-udpgen sink --local 198.18.1.2 --port 9000 --records "$RUN/traffic/noise.server.rec" &   # ready: ready
ip netns exec sb-3614a8d7-a sh -c 'echo ready; read _; exec "$@"' sh iperf3 -c 198.18.0.2 -B 198.18.0.1 -p 5201 -t 10 -i 1 -C cubic -J --logfile "$RUN/traffic/bulk1.json" &   # ready: ready
ip netns exec sb-3614a8d7-a sh -c 'echo ready; read _; exec "$@"' sh iperf3 -c 198.18.0.2 -B 198.18.0.1 -p 5202 -t 10 -i 1 -C cubic -J --logfile "$RUN/traffic/bulk2.json" &   # ready: ready
ip netns exec sb-3614a8d7-a sctpbench-udpgen send --local 198.18.1.1 --peer 198.18.1.2 --port 9000 --size 250 --rate 1712.33 --arrival poisson --seed 9622128180987017787 --duration 10000 --records "$RUN/traffic/noise.client.rec" &   # ready: ready
# timeline: t0 is when every process is ready
# t0+0.000s start main: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of main.client
# t0+0.000s go bulk1 iperf3 cubic a → b over bottleneck for 10s: write 'go' to the stdin of bulk1.client
# t0+0.000s go bulk2 iperf3 cubic a → b over bottleneck for 10s: write 'go' to the stdin of bulk2.client
# t0+0.000s start noise udp 1712.33/s a → b over side: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of noise.client
# traffic: wait for every sender; iperf3's server ends with its test, a udp sink when a line reaches its stdin
#   bulk1: tcp a → b over bottleneck, t0+0.000s to t0+10.000s, output traffic/bulk1.json
#   bulk2: tcp a → b over bottleneck, t0+0.000s to t0+10.000s, output traffic/bulk2.json
#   noise: udp a → b over side, t0+0.000s to t0+10.000s, output traffic/noise.client.rec, traffic/noise.server.rec
