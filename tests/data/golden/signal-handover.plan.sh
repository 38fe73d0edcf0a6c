# sctpbench plan: signal-handover, repetition 1, seed 1, run id d99547624436
# clock: virtual
# RUN=$RUN is the run's results folder
mkdir -p $RUN/records $RUN/captures
modprobe -a sctp sch_netem sch_tbf veth sch_ingress cls_matchall act_gact
ip netns add sb-d9954762-mobile
ip netns add sb-d9954762-server
ip netns exec sb-d9954762-mobile sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip netns exec sb-d9954762-server sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link add name wlan netns sb-d9954762-mobile address 02:5b:c6:12:00:01 type veth peer name wlan netns sb-d9954762-server address 02:5b:c6:12:00:02
ip link add name cell netns sb-d9954762-mobile address 02:5b:c6:12:01:01 type veth peer name cell netns sb-d9954762-server address 02:5b:c6:12:01:02
ip -n sb-d9954762-mobile link set lo up
ip -n sb-d9954762-mobile addr add 198.18.0.1/24 dev wlan
ip -n sb-d9954762-mobile link set dev wlan gso_max_segs 1 up
ip -n sb-d9954762-mobile neigh replace 198.18.0.2 lladdr 02:5b:c6:12:00:02 dev wlan nud permanent
ip -n sb-d9954762-mobile addr add 198.18.1.1/24 dev cell
ip -n sb-d9954762-mobile link set dev cell gso_max_segs 1 up
ip -n sb-d9954762-mobile neigh replace 198.18.1.2 lladdr 02:5b:c6:12:01:02 dev cell nud permanent
tc -n sb-d9954762-mobile qdisc add dev wlan root handle 1: netem delay 5ms limit 1108
tc -n sb-d9954762-mobile qdisc add dev wlan parent 1:1 handle 10: tbf rate 11mbit burst 3028 limit 1073741824
tc -n sb-d9954762-mobile qdisc add dev wlan parent 10:1 handle 20: pfifo limit 100
tc -n sb-d9954762-mobile qdisc add dev cell root handle 1: netem delay 40ms limit 1235
tc -n sb-d9954762-mobile qdisc add dev cell parent 1:1 handle 10: tbf rate 3mbit burst 3028 limit 1073741824
tc -n sb-d9954762-mobile qdisc add dev cell parent 10:1 handle 20: pfifo limit 100
ip -n sb-d9954762-server link set lo up
ip -n sb-d9954762-server addr add 198.18.0.2/24 dev wlan
ip -n sb-d9954762-server link set dev wlan gso_max_segs 1 up
ip -n sb-d9954762-server neigh replace 198.18.0.1 lladdr 02:5b:c6:12:00:01 dev wlan nud permanent
ip -n sb-d9954762-server addr add 198.18.1.2/24 dev cell
ip -n sb-d9954762-server link set dev cell gso_max_segs 1 up
ip -n sb-d9954762-server neigh replace 198.18.1.1 lladdr 02:5b:c6:12:01:01 dev cell nud permanent
tc -n sb-d9954762-server qdisc add dev wlan root handle 1: netem delay 5ms limit 1108
tc -n sb-d9954762-server qdisc add dev wlan parent 1:1 handle 10: tbf rate 11mbit burst 3028 limit 1073741824
tc -n sb-d9954762-server qdisc add dev wlan parent 10:1 handle 20: pfifo limit 100
tc -n sb-d9954762-server qdisc add dev cell root handle 1: netem delay 40ms limit 1235
tc -n sb-d9954762-server qdisc add dev cell parent 1:1 handle 10: tbf rate 3mbit burst 3028 limit 1073741824
tc -n sb-d9954762-server qdisc add dev cell parent 10:1 handle 20: pfifo limit 100
ip netns exec sb-d9954762-mobile sysctl -q -w net.sctp.hb_interval=1000 net.sctp.sack_timeout=10 net.sctp.pf_expose=2
ip netns exec sb-d9954762-server sysctl -q -w net.sctp.hb_interval=1000 net.sctp.sack_timeout=10 net.sctp.pf_expose=2
sysctl -q -w net.core.wmem_max=1048576 net.core.wmem_default=1048576 'net.sctp.sctp_wmem=4096 1048576 4194304'
# processes: each is started once the one before printed its ready line
ip netns exec sb-d9954762-server /opt/sctpbench-agent server --local 198.18.0.2,198.18.1.2 --port 5000 --records "$RUN/records/main.server.rec" --sample-interval 20 --nodelay 1 &   # ready: listening
ip netns exec sb-d9954762-mobile /opt/sctpbench-agent client --local 198.18.0.1,198.18.1.1 --peer 198.18.0.2,198.18.1.2 --port 5000 --records "$RUN/records/main.client.rec" --arrival schedule --schedule "$RUN/schedules/main.sched" --duration 12000 --drain-timeout 10000 --policy signal:switch=-75,hysteresis=5,prepare=-65 --signal "$RUN/signals/main.sig" --sample-interval 20 --nodelay 1 &   # ready: ready
# timeline: t0 is when every process is ready
# t0+0.000s start main: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of main.client
# t0+7.000s degrade wlan forward netem delay 5ms loss random 1% limit 1108 (trace loss)
tc -n sb-d9954762-mobile qdisc change dev wlan root handle 1: netem delay 5ms loss random 1% limit 1108
tc -n sb-d9954762-mobile qdisc change dev wlan parent 1:1 handle 10: tbf rate 11mbit burst 3028 limit 1073741824
tc -n sb-d9954762-mobile qdisc change dev wlan parent 10:1 handle 20: pfifo limit 100
# t0+7.000s degrade wlan reverse netem delay 5ms loss random 1% limit 1108 (trace loss)
tc -n sb-d9954762-server qdisc change dev wlan root handle 1: netem delay 5ms loss random 1% limit 1108
tc -n sb-d9954762-server qdisc change dev wlan parent 1:1 handle 10: tbf rate 11mbit burst 3028 limit 1073741824
tc -n sb-d9954762-server qdisc change dev wlan parent 10:1 handle 20: pfifo limit 100
# t0+7.500s degrade wlan forward netem delay 5ms loss random 3% limit 1108 (trace loss)
tc -n sb-d9954762-mobile qdisc change dev wlan root handle 1: netem delay 5ms loss random 3% limit 1108
tc -n sb-d9954762-mobile qdisc change dev wlan parent 1:1 handle 10: tbf rate 11mbit burst 3028 limit 1073741824
tc -n sb-d9954762-mobile qdisc change dev wlan parent 10:1 handle 20: pfifo limit 100
# t0+7.500s degrade wlan reverse netem delay 5ms loss random 3% limit 1108 (trace loss)
tc -n sb-d9954762-server qdisc change dev wlan root handle 1: netem delay 5ms loss random 3% limit 1108
tc -n sb-d9954762-server qdisc change dev wlan parent 1:1 handle 10: tbf rate 11mbit burst 3028 limit 1073741824
tc -n sb-d9954762-server qdisc change dev wlan parent 10:1 handle 20: pfifo limit 100
# t0+8.000s degrade wlan forward netem delay 5ms loss random 10% limit 1108 (trace loss)
tc -n sb-d9954762-mobile qdisc change dev wlan root handle 1: netem delay 5ms loss random 10% limit 1108
tc -n sb-d9954762-mobile qdisc change dev wlan parent 1:1 handle 10: tbf rate 11mbit burst 3028 limit 1073741824
tc -n sb-d9954762-mobile qdisc change dev wlan parent 10:1 handle 20: pfifo limit 100
# t0+8.000s degrade wlan reverse netem delay 5ms loss random 10% limit 1108 (trace loss)
tc -n sb-d9954762-server qdisc change dev wlan root handle 1: netem delay 5ms loss random 10% limit 1108
tc -n sb-d9954762-server qdisc change dev wlan parent 1:1 handle 10: tbf rate 11mbit burst 3028 limit 1073741824
tc -n sb-d9954762-server qdisc change dev wlan parent 10:1 handle 20: pfifo limit 100
# t0+9.000s degrade wlan forward netem delay 5ms loss random 30% limit 1108 (trace loss)
tc -n sb-d9954762-mobile qdisc change dev wlan root handle 1: netem delay 5ms loss random 30% limit 1108
tc -n sb-d9954762-mobile qdisc change dev wlan parent 1:1 handle 10: tbf rate 11mbit burst 3028 limit 1073741824
tc -n sb-d9954762-mobile qdisc change dev wlan parent 10:1 handle 20: pfifo limit 100
# t0+9.000s degrade wlan reverse netem delay 5ms loss random 30% limit 1108 (trace loss)
tc -n sb-d9954762-server qdisc change dev wlan root handle 1: netem delay 5ms loss random 30% limit 1108
tc -n sb-d9954762-server qdisc change dev wlan parent 1:1 handle 10: tbf rate 11mbit burst 3028 limit 1073741824
tc -n sb-d9954762-server qdisc change dev wlan parent 10:1 handle 20: pfifo limit 100
