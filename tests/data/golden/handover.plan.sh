# sctpbench plan: handover, repetition 1, seed 1, run id 1c1b53161104
# clock: virtual
# RUN=$RUN is the run's results folder
mkdir -p $RUN/records $RUN/captures
modprobe -a sctp sch_netem sch_tbf veth sch_ingress cls_matchall act_gact
ip netns add sb-1c1b5316-client
ip netns add sb-1c1b5316-server
ip netns exec sb-1c1b5316-client sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip netns exec sb-1c1b5316-server sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link add name primary netns sb-1c1b5316-client address 02:5b:c6:12:00:01 type veth peer name primary netns sb-1c1b5316-server address 02:5b:c6:12:00:02
ip link add name secondary netns sb-1c1b5316-client address 02:5b:c6:12:01:01 type veth peer name secondary netns sb-1c1b5316-server address 02:5b:c6:12:01:02
ip -n sb-1c1b5316-client link set lo up
ip -n sb-1c1b5316-client addr add 198.18.0.1/24 dev primary
ip -n sb-1c1b5316-client link set dev primary gso_max_segs 1 up
ip -n sb-1c1b5316-client neigh replace 198.18.0.2 lladdr 02:5b:c6:12:00:02 dev primary nud permanent
ip -n sb-1c1b5316-client addr add 198.18.1.1/24 dev secondary
ip -n sb-1c1b5316-client link set dev secondary gso_max_segs 1 up
ip -n sb-1c1b5316-client neigh replace 198.18.1.2 lladdr 02:5b:c6:12:01:02 dev secondary nud permanent
tc -n sb-1c1b5316-client qdisc add dev primary root handle 1: netem delay 10ms limit 2954
tc -n sb-1c1b5316-client qdisc add dev primary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-1c1b5316-client qdisc add dev primary parent 10:1 handle 20: pfifo limit 1000
tc -n sb-1c1b5316-client qdisc add dev secondary root handle 1: netem delay 10ms limit 2954
tc -n sb-1c1b5316-client qdisc add dev secondary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-1c1b5316-client qdisc add dev secondary parent 10:1 handle 20: pfifo limit 1000
ip -n sb-1c1b5316-server link set lo up
ip -n sb-1c1b5316-server addr add 198.18.0.2/24 dev primary
ip -n sb-1c1b5316-server link set dev primary gso_max_segs 1 up
ip -n sb-1c1b5316-server neigh replace 198.18.0.1 lladdr 02:5b:c6:12:00:01 dev primary nud permanent
ip -n sb-1c1b5316-server addr add 198.18.1.2/24 dev secondary
ip -n sb-1c1b5316-server link set dev secondary gso_max_segs 1 up
ip -n sb-1c1b5316-server neigh replace 198.18.1.1 lladdr 02:5b:c6:12:01:01 dev secondary nud permanent
tc -n sb-1c1b5316-server qdisc add dev primary root handle 1: netem delay 10ms limit 2954
tc -n sb-1c1b5316-server qdisc add dev primary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-1c1b5316-server qdisc add dev primary parent 10:1 handle 20: pfifo limit 1000
tc -n sb-1c1b5316-server qdisc add dev secondary root handle 1: netem delay 10ms limit 2954
tc -n sb-1c1b5316-server qdisc add dev secondary parent 1:1 handle 10: tbf rate 100mbit burst 12500 limit 1073741824
tc -n sb-1c1b5316-server qdisc add dev secondary parent 10:1 handle 20: pfifo limit 1000
ip netns exec sb-1c1b5316-client sysctl -q -w net.sctp.sack_timeout=10 net.sctp.pf_expose=2 net.sctp.addip_enable=1 net.sctp.auth_enable=1
ip netns exec sb-1c1b5316-server sysctl -q -w net.sctp.sack_timeout=10 net.sctp.pf_expose=2 net.sctp.addip_enable=1 net.sctp.auth_enable=1
# processes: each is started once the one before printed its ready line
ip netns exec sb-1c1b5316-server /opt/sctpbench-agent server --local 198.18.0.2,198.18.1.2 --port 5000 --records "$RUN/records/main.server.rec" --sample-interval 20 --nodelay 1 &   # ready: listening
ip netns exec sb-1c1b5316-client /opt/sctpbench-agent client --local 198.18.0.1 --peer 198.18.0.2,198.18.1.2 --port 5000 --records "$RUN/records/main.client.rec" --size 200 --rate 50 --arrival periodic --seed 1 --duration 6000 --send-streams 1 --drain-timeout 10000 --sample-interval 20 --nodelay 1 &   # ready: ready
# timeline: t0 is when every process is ready
# t0+0.000s start main: write 'start <t0+at in CLOCK_MONOTONIC ns>' to the stdin of main.client
# t0+2.000s add_address secondary handover: write 'addaddr 198.18.1.1' to the stdin of main.client
# t0+3.000s primary secondary handover: write 'primary 198.18.1.2' to the stdin of main.client
# t0+3.000s peer_primary secondary handover: write 'peerprimary 198.18.1.1' to the stdin of main.client
# t0+4.000s delete_address primary handover: write 'deladdr 198.18.0.1' to the stdin of main.client
