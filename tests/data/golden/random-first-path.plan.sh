# sctpbench plan: seed003-policies, repetition 1, seed 1, run id 7b9a77d0de75
# clock: virtual; drawn for this repetition: start windows src1 +118.031 ms, src2 +135.779 ms, src3 +429.557 ms, src4 +821.572 ms, src5 +96.757 ms, src6 +852.016 ms; first paths src1 two, src2 one, src3 two, src4 one, src5 one, src6 two
# RUN=$RUN is the run's results folder
mkdir -p $RUN/records $RUN/captures
modprobe -a sctp sch_netem sch_tbf veth sch_ingress cls_matchall act_gact
ip netns add sb-7b9a77d0-a
ip netns add sb-7b9a77d0-b
ip netns exec sb-7b9a77d0-a sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip netns exec sb-7b9a77d0-b sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link add name one netns sb-7b9a77d0-a address 02:5b:c6:12:00:01 type veth peer name one netns sb-7b9a77d0-b address 02:5b:c6:12:00:02
ip link add name two netns sb-7b9a77d0-a address 02:5b:c6:12:01:01 type veth peer name two netns sb-7b9a77d0-b address 02:5b:c6:12:01:02
ip -n sb-7b9a77d0-a link set lo up
ip -n sb-7b9a77d0-a addr add 198.18.0.1/24 dev one
ip -n sb-7b9a77d0-a link set dev one gso_max_segs 1 up
ip -n sb-7b9a77d0-a neigh replace 198.18.0.2 lladdr 02:5b:c6:12:00:02 dev one nud permanent
ip -n sb-7b9a77d0-a addr add 198.18.1.1/24 dev two
ip -n sb-7b9a77d0-a link set dev two gso_max_segs 1 up
ip -n sb-7b9a77d0-a neigh replace 198.18.1.2 lladdr 02:5b:c6:12:01:02 dev two nud permanent
tc -n sb-7b9a77d0-a qdisc add dev one root handle 1: netem delay 1ms rate 1mbit limit 1002
tc -n sb-7b9a77d0-a qdisc add dev two root handle 1: netem delay 1ms rate 1mbit limit 1002
ip -n sb-7b9a77d0-b link set lo up
ip -n sb-7b9a77d0-b addr add 198.18.0.2/24 dev one
ip -n sb-7b9a77d0-b link set dev one gso_max_segs 1 up
ip -n sb-7b9a77d0-b neigh replace 198.18.0.1 lladdr 02:5b:c6:12:00:01 dev one nud permanent
ip -n sb-7b9a77d0-b addr add 198.18.1.2/24 dev two
ip -n sb-7b9a77d0-b link set dev two gso_max_segs 1 up
ip -n sb-7b9a77d0-b neigh replace 198.18.1.1 lladdr 02:5b:c6:12:01:01 dev two nud permanent
tc -n sb-7b9a77d0-b qdisc add dev one root handle 1: netem delay 1ms rate 1mbit limit 1002
tc -n sb-7b9a77d0-b qdisc add dev two root handle 1: netem delay 1ms rate 1mbit limit 1002
ip netns exec sb-7b9a77d0-a sysctl -q -w net.sctp.rto_min=1000 net.sctp.rto_initial=1000 net.sctp.pf_enable=0 net.sctp.hb_interval=200
ip netns exec sb-7b9a77d0-b sysctl -q -w net.sctp.rto_min=1000 net.sctp.rto_initial=1000 net.sctp.pf_enable=0 net.sctp.hb_interval=200
sysctl -q -w net.core.rmem_max=4000000 net.core.rmem_default=4000000 'net.sctp.sctp_rmem=4096 4000000 4194304' net.core.wmem_max=4000000 net.core.wmem_default=4000000 'net.sctp.sctp_wmem=4096 4000000 4194304'
# processes: each is started once the one before printed its ready line
ip netns exec sb-7b9a77d0-b /opt/sctpbench-agent server --local 198.18.1.2,198.18.0.2 --port 5000 --records "$RUN/records/src1.server.rec" --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: listening
ip netns exec sb-7b9a77d0-a /opt/sctpbench-agent client --local 198.18.1.1,198.18.0.1 --peer 198.18.1.2,198.18.0.2 --port 5000 --records "$RUN/records/src1.client.rec" --size 250 --rate 120.19 --arrival periodic --seed 1 --duration 8000 --send-streams 1 --drain-timeout 10000 --policy delay-centric:hysteresis=10 --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: ready
ip netns exec sb-7b9a77d0-b /opt/sctpbench-agent server --local 198.18.0.2,198.18.1.2 --port 5001 --records "$RUN/records/src2.server.rec" --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: listening
ip netns exec sb-7b9a77d0-a /opt/sctpbench-agent client --local 198.18.0.1,198.18.1.1 --peer 198.18.0.2,198.18.1.2 --port 5001 --records "$RUN/records/src2.client.rec" --size 250 --rate 120.19 --arrival periodic --seed 15910816766750638878 --duration 8000 --send-streams 1 --drain-timeout 10000 --policy delay-centric:hysteresis=10 --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: ready
ip netns exec sb-7b9a77d0-b /opt/sctpbench-agent server --local 198.18.1.2,198.18.0.2 --port 5002 --records "$RUN/records/src3.server.rec" --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: listening
ip netns exec sb-7b9a77d0-a /opt/sctpbench-agent client --local 198.18.1.1,198.18.0.1 --peer 198.18.1.2,198.18.0.2 --port 5002 --records "$RUN/records/src3.client.rec" --size 250 --rate 120.19 --arrival periodic --seed 2974998497964170680 --duration 8000 --send-streams 1 --drain-timeout 10000 --policy delay-centric:hysteresis=10 --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: ready
ip netns exec sb-7b9a77d0-b /opt/sctpbench-agent server --local 198.18.0.2,198.18.1.2 --port 5003 --records "$RUN/records/src4.server.rec" --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: listening
ip netns exec sb-7b9a77d0-a /opt/sctpbench-agent client --local 198.18.0.1,198.18.1.1 --peer 198.18.0.2,198.18.1.2 --port 5003 --records "$RUN/records/src4.client.rec" --size 250 --rate 120.19 --arrival periodic --seed 10727897808440711231 --duration 8000 --send-streams 1 --drain-timeout 10000 --policy delay-centric:hysteresis=10 --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: ready
ip netns exec sb-7b9a77d0-b /opt/sctpbench-agent server --local 198.18.0.2,198.18.1.2 --port 5004 --records "$RUN/records/src5.server.rec" --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: listening
ip netns exec sb-7b9a77d0-a /opt/sctpbench-agent client --local 198.18.0.1,198.18.1.1 --peer 198.18.0.2,198.18.1.2 --port 5004 --records "$RUN/records/src5.client.rec" --size 250 --rate 120.19 --arrival periodic --seed 5346100976960307925 --duration 8000 --send-streams 1 --drain-timeout 10000 --policy delay-centric:hysteresis=10 --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: ready
ip netns exec sb-7b9a77d0-b /opt/sctpbench-agent server --local 198.18.1.2,198.18.0.2 --port 5005 --records "$RUN/records/src6.server.rec" --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: listening
ip netns exec sb-7b9a77d0-a /opt/sctpbench-agent client --local 198.18.1.1,198.18.0.1 --peer 198.18.1.2,198.18.0.2 --port 5005 --records "$RUN/records/src6.client.rec" --size 250 --rate 120.19 --arrival periodic --seed 5232940513376551840 --duration 8000 --send-streams 1 --drain-timeout 10000 --policy delay-centric:hysteresis=10 --sample-interval 20 --nodelay 1 --sack-freq 1 &   # ready: ready
# timeline: t0 is when every process is ready
# t0+2.097s start src5: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of src5.client
# t0+2.118s start src1: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of src1.client
# t0+2.136s start src2: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of src2.client
# t0+2.430s start src3: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of src3.client
# t0+2.822s start src4: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of src4.client
# t0+2.852s start src6: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of src6.client
