"""Competing flows made concrete: addresses, the processes at each end and when they go.

Each flow has a receiver, started first and ready before t0 like the agents (iperf3's
server, udpgen's sink), and a sender started idle and told to go on the timeline:

- udpgen takes `start T` (absolute CLOCK_MONOTONIC ns) on stdin as the agent does, so its
  start is the plan's ordinary `start` action, written at t0 and waited for by udpgen;
- iperf3 has no "start at T", so it runs under a shell that prints `ready` and execs
  iperf3 once a line arrives on its stdin: the `go` action, which the backend writes at
  the flow's time (its lag is in events.jsonl like every timed action's).
"""

from __future__ import annotations

import hashlib
from typing import Any

from sctpbench.model import traffic
from sctpbench.model.experiment import Experiment, PathSpec
from sctpbench.plan.data import Flow, Link, Process, TimedAction, agent_name
from sctpbench.plan.network import association_paths

# The timeline action that lets a waiting sender (iperf3's wrapper) run.
GO = "go"
GO_LINE = "go"
# The wrapper: ready once started, iperf3 once told (its arguments follow as "$@").
WAIT_THEN_EXEC = 'echo ready; read _; exec "$@"'
IPERF3_READY = "Server listening"
UDPGEN_READY = "ready"


def flows(experiment: Experiment, links: list[Link], start_offset: int) -> list[Flow]:
    """Every flow of the experiment, on its path's addresses; `start_offset` is the run's `vary: start` draw."""
    return [_flow(f, experiment.topology.paths, links, start_offset) for f in experiment.traffic]


def _flow(f: traffic.Flow, paths: dict[str, PathSpec], links: list[Link], start_offset: int) -> Flow:
    path = str(traffic.flow_path(f, paths))
    # A dual-stack path's IPv4 pair comes first, as for associations.
    ends = next(p for p in association_paths(links, f.client, f.server) if p.path == path)
    if isinstance(f, traffic.TcpFlow):
        params: dict[str, Any] = {"congestion": f.congestion, "sample_interval_ns": f.sample_interval, "port": f.port,
                                  "parallel": f.parallel}
        outputs = {"client": f"traffic/{f.name}.json"}
    else:
        assert isinstance(f, traffic.UdpFlow)
        rate = traffic.udp_rate(f, paths[path])
        params = {"size": f.size, "rate": rate, "arrival": f.arrival, "port": f.port, "share": f.share,
                  "offered_bps": rate * (f.size + traffic.UDP_WIRE_OVERHEAD) * 8}
        outputs = {"client": f"traffic/{agent_name(f.name, 'client')}.rec", "server": f"traffic/{agent_name(f.name, 'server')}.rec"}
    return Flow(
        name=f.name, kind=f.kind, client=f.client, server=f.server, path=path,
        client_address=ends.client_address, server_address=ends.server_address,
        start_ns=f.start + start_offset, duration_ns=f.duration, params=params,
        client_process=agent_name(f.name, "client"), server_process=agent_name(f.name, "server"), outputs=outputs,
    )


def flow_seed(seed: int, name: str) -> int:
    """Each udp flow's own seed, from the run's and its name: flows draw apart from the associations."""
    return int.from_bytes(hashlib.sha256(f"{seed}/traffic/{name}".encode()).digest()[:8], "big")


def receivers(plan_flows: list[Flow], udpgen: str) -> list[Process]:
    return [_receiver(f, udpgen) for f in plan_flows]


def senders(plan_flows: list[Flow], udpgen: str, seed: int) -> list[Process]:
    return [_sender(f, udpgen, seed) for f in plan_flows]


def _receiver(f: Flow, udpgen: str) -> Process:
    if f.kind == "tcp":
        # One test, then it exits; --forceflush or its ready line would wait in a pipe's buffer.
        argv = ["iperf3", "-s", "-1", "-B", f.server_address, "-p", str(f.params["port"]), "--forceflush"]
        return Process(f.server_process, "traffic-server", f.server, argv, IPERF3_READY)
    argv = [udpgen, "sink", "--local", f.server_address, "--port", str(f.params["port"]),
            "--records", f"{{run}}/{f.outputs['server']}"]
    return Process(f.server_process, "traffic-server", f.server, argv, UDPGEN_READY)


def _sender(f: Flow, udpgen: str, seed: int) -> Process:
    if f.kind == "tcp":
        seconds = f.duration_ns // 1_000_000_000  # the spec allows whole seconds only
        iperf3 = ["iperf3", "-c", f.server_address, "-B", f.client_address, "-p", str(f.params["port"]),
                  "-t", str(seconds), "-i", f"{f.params['sample_interval_ns'] / 1e9:g}", "-C", f.params["congestion"],
                  *(["-P", str(f.params["parallel"])] if f.params.get("parallel", 1) > 1 else []),
                  "-J", "--logfile", f"{{run}}/{f.outputs['client']}"]
        return Process(f.client_process, "traffic-client", f.client, ["sh", "-c", WAIT_THEN_EXEC, "sh", *iperf3], "ready")
    argv = [udpgen, "send", "--local", f.client_address, "--peer", f.server_address, "--port", str(f.params["port"]),
            "--size", str(f.params["size"]), "--rate", f"{f.params['rate']:.6g}", "--arrival", f.params["arrival"],
            "--seed", str(flow_seed(seed, f.name)), "--duration", str(f.duration_ns // 1_000_000),
            "--records", f"{{run}}/{f.outputs['client']}"]
    return Process(f.client_process, "traffic-client", f.client, argv, UDPGEN_READY)


def actions(plan_flows: list[Flow]) -> list[TimedAction]:
    """When each sender goes: `go` for iperf3 (written at the time), `start T` for udpgen (waited for)."""
    out = []
    for f in plan_flows:
        if f.kind == "tcp":
            detail = f"iperf3 {f.params['congestion']} {f.client} → {f.server} over {f.path} for {f.duration_ns / 1e9:g}s"
            out.append(TimedAction(f.start_ns, GO, f.name, control=GO_LINE, detail=detail, agents=[f.client_process]))
        else:
            detail = f"udp {f.params['rate']:.6g}/s {f.client} → {f.server} over {f.path}"
            out.append(TimedAction(f.start_ns, "start", f.name, control="start {t}", detail=detail, agents=[f.client_process]))
    return out
