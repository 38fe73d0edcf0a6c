# uml backend: these commands run as root inside a User-Mode Linux guest that sctpbench boots (real clock; its command line is in guest.json)
# sctpbench plan: failover, repetition 1, seed 1, run id e54830fea7e6
# clock: real
# RUN=/tmp/fx/run/failover-20261126-140457/run-001 is the run's results folder
mkdir -p /tmp/fx/run/failover-20261126-140457/run-001/records /tmp/fx/run/failover-20261126-140457/run-001/captures
modprobe -a sctp sch_netem sch_tbf veth sch_ingress cls_matchall act_gact
ip netns add sb-e54830fe-client
ip netns add sb-e54830fe-server
ip netns exec sb-e54830fe-client sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip netns exec sb-e54830fe-server sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link add name primary netns sb-e54830fe-client address 02:5b:c6:12:00:01 type veth peer name primary netns sb-e54830fe-server address 02:5b:c6:12:00:02
ip link add name secondary netns sb-e54830fe-client address 02:5b:c6:12:01:01 type veth peer name secondary netns sb-e54830fe-server address 02:5b:c6:12:01:02
ip -n sb-e54830fe-client link set lo up
ip -n sb-e54830fe-client addr add 198.18.0.1/24 dev primary
ip -n sb-e54830fe-client link set dev primary gso_max_segs 1 up
ip -n sb-e54830fe-client neigh replace 198.18.0.2 lladdr 02:5b:c6:12:00:02 dev primary nud permanent
ip -n sb-e54830fe-client addr add 198.18.1.1/24 dev secondary
ip -n sb-e54830fe-client link set dev secondary gso_max_segs 1 up
ip -n sb-e54830fe-client neigh replace 198.18.1.2 lladdr 02:5b:c6:12:01:02 dev secondary nud permanent
tc -n sb-e54830fe-client qdisc add dev primary root handle 1: netem delay 10ms limit 2954
tc -n sb-e54830fe-client qdisc add dev primary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-e54830fe-client qdisc add dev primary parent 10:1 handle 20: pfifo limit 1000
tc -n sb-e54830fe-client qdisc add dev primary ingress
tc -n sb-e54830fe-client qdisc add dev secondary root handle 1: netem delay 10ms limit 2954
tc -n sb-e54830fe-client qdisc add dev secondary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-e54830fe-client qdisc add dev secondary parent 10:1 handle 20: pfifo limit 1000
ip -n sb-e54830fe-server link set lo up
ip -n sb-e54830fe-server addr add 198.18.0.2/24 dev primary
ip -n sb-e54830fe-server link set dev primary gso_max_segs 1 up
ip -n sb-e54830fe-server neigh replace 198.18.0.1 lladdr 02:5b:c6:12:00:01 dev primary nud permanent
ip -n sb-e54830fe-server addr add 198.18.1.2/24 dev secondary
ip -n sb-e54830fe-server link set dev secondary gso_max_segs 1 up
ip -n sb-e54830fe-server neigh replace 198.18.1.1 lladdr 02:5b:c6:12:01:01 dev secondary nud permanent
tc -n sb-e54830fe-server qdisc add dev primary root handle 1: netem delay 10ms limit 2954
tc -n sb-e54830fe-server qdisc add dev primary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-e54830fe-server qdisc add dev primary parent 10:1 handle 20: pfifo limit 1000
tc -n sb-e54830fe-server qdisc add dev primary ingress
tc -n sb-e54830fe-server qdisc add dev secondary root handle 1: netem delay 10ms limit 2954
tc -n sb-e54830fe-server qdisc add dev secondary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-e54830fe-server qdisc add dev secondary parent 10:1 handle 20: pfifo limit 1000
ip netns exec sb-e54830fe-client sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.path_max_retrans=2 net.sctp.association_max_retrans=10 net.sctp.pf_enable=0 net.sctp.hb_interval=1000 net.sctp.sack_timeout=10
ip netns exec sb-e54830fe-server sysctl -q -w net.sctp.rto_min=200 net.sctp.rto_max=800 net.sctp.rto_initial=200 net.sctp.path_max_retrans=2 net.sctp.association_max_retrans=10 net.sctp.pf_enable=0 net.sctp.hb_interval=1000 net.sctp.sack_timeout=10
# processes: each is started once the one before printed its ready line
ip netns exec sb-e54830fe-server /tmp/before-src/sctpbench/workloads/agent/build/sctpbench-agent server --local 198.18.0.2,198.18.1.2 --port 5000 --records "/tmp/fx/run/failover-20261126-140457/run-001/records/main.server.rec" --sample-interval 20 --nodelay 1 &   # ready: listening
ip netns exec sb-e54830fe-client /tmp/before-src/sctpbench/workloads/agent/build/sctpbench-agent client --local 198.18.0.1,198.18.1.1 --peer 198.18.0.2,198.18.1.2 --port 5000 --records "/tmp/fx/run/failover-20261126-140457/run-001/records/main.client.rec" --size 200 --rate 50 --arrival periodic --seed 1 --duration 4000 --send-streams 1 --drain-timeout 10000 --sample-interval 20 --nodelay 1 &   # ready: ready
# timeline: t0 is when every process is ready
# t0+0.000s start main: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of main.client
# t0+2.000s fail primary
tc -n sb-e54830fe-client filter add dev primary ingress pref 1 matchall action drop
tc -n sb-e54830fe-server filter add dev primary ingress pref 1 matchall action drop
