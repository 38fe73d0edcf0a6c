"""The files of a run folder: the one place they are written down.

Every backend leaves the same files, so the collectors, telemetry, verify and reports read
a run the same way whatever ran it. The orchestrator (runner.py) writes format.json, plan.json,
plan.sh, host.json and the plan's files (schedules/, signals/) before the backend starts;
everything in between is the backend's (FILES); collection (analysis/store.py) then adds the
tables, params.json and summary.json, and a push telemetry.json (COLLECTED). Each is listed
with its one writer. Times are CLOCK_MONOTONIC nanoseconds of the kernel the agents run on; on
the ansible backend, whose agents run on several machines' kernels, CLOCK_REALTIME
(backend.json's `clock` says so).

Every results folder (run, session, campaign) holds format.json, its format's version and
kind (version.py); sessions and campaigns are described in folders.py and campaign.py. The
readers and writers of every file are this package's modules (docs/results-format.md lists
which module owns which file).

`python -m sctpbench.results.files` prints the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class RunFile:
    name: str  # relative to the run folder; <x> stands for any name
    writer: str
    content: str
    required: bool = True  # every run that finished leaves it; the others only where they apply

    @property
    def pattern(self) -> str:
        """The name as a glob pattern."""
        return re.sub(r"<[^>]+>", "*", self.name)


FILES: tuple[RunFile, ...] = (
    RunFile("backend.json", "the backend (netns/engine.py: run_plan)",
            "how the run ended: ok (true, false; null while running), error (the backend's words), t0_ns (the "
            "timeline's zero) and t0_realtime_ns (its wall-clock time, for telemetry). Only where the backend "
            "could not say it does another amend ok and error: the runner (a full disk) and the uml guardian "
            "(\"orchestrator killed\")"),
    RunFile("events.jsonl", "the backend (netns/engine.py: NetnsEngine.run)",
            "one line per timeline action: kind, target, detail, direction, at_ns, scheduled_ns, issued_ns, "
            "applied_ns, lag_ns"),
    RunFile("kernel.json", "the backend (netns/engine.py: NetnsEngine.build)",
            "what is in force, read back after building: net.sctp.* sysctls per host, kernel-wide socket "
            "buffers, qdiscs per host, the kernel's HZ (measured)"),
    RunFile("versions.json", "the backend (netns/engine.py: NetnsEngine.build)",
            "the endpoints' kernel (release, version, config sha256, time travel), machine, iproute2, the agent's "
            "--version"),
    RunFile("records/<association>.<role>.rec", "the agents the backend starts (workloads/agent)",
            "agent records, one per endpoint process: role client or server of each association, as the plan's "
            "associations name them (workloads/agent/RECORDS.md)"),
    RunFile("records/<process>.stdout", "the backend (netns/engine.py: NetnsEngine.start_process)",
            "each process's standard output: its ready line and its answers to timeline commands"),
    RunFile("records/<process>.stderr", "the backend (netns/engine.py: NetnsEngine.start_process)",
            "each agent's standard error, where its error messages come from"),
    RunFile("captures/<path>-<host>.pcap", "tcpdump, started by the backend", "packets per path and end, when "
            "measure.capture is on", required=False),
    RunFile("traffic/<flow>.json", "iperf3, started by the backend (plan/traffic.py)",
            "a tcp flow's client report (-J): intervals and totals", required=False),
    RunFile("traffic/<flow>.<role>.rec", "sctpbench-udpgen, started by the backend (plan/traffic.py)",
            "a udp flow's records, client (sender) and server (sink) (workloads/udpgen/README.md)", required=False),
    RunFile("<tool>-<namespace>.log", "the backend (netns/engine.py: BatchSession)",
            "the output of the tc/ip batch kept open per namespace for timeline events", required=False),
    RunFile("ansible.json", "the ansible backend (ansible/backend.py: run_plan)",
            "the inventory and playbooks used, the bundle sent to the machines, each playbook's wall time, the clock "
            "preflight (each machine's offset from the orchestrating host, ± half the round trip) and the clean-up's "
            "outcome; backend.json, kernel.json and versions.json then also hold every machine's own under `machines`",
            required=False),
    RunFile("guest.json", "the uml backend (uml/backend.py: run_plan)",
            "the guest as booted: kernel, origin, release, config sha256, time travel, clock, scheduler, command "
            "line, rng (whether the kernel's random numbers were seeded with the run's seed, "
            "random.seed=); at the end its wall time and, on the paced clock, the calendar's statistics", required=False),
    RunFile("mininet.json", "the mininet backend (mininet/engine.py: MininetEngine)",
            "the Mininet network as built: Mininet's version, hosts (with their shells' pids), bridges, links (host "
            "interface and MAC, bridge port and MAC), the guest-wide sysctls it set, present_after_build (the namespaces, "
            "bridges, ports and shells found once built); at the end `teardown`: errors, namespaces_left, links_left, "
            "shells_left (the same survey: all empty when nothing was left) and clean", required=False),
    RunFile("console.log", "the uml backend (uml/backend.py: run_plan)", "the guest's console", required=False),
    RunFile("guardian.log", "the uml guardian (uml/guardian.py)",
            "only when sctpbench died without tearing the guest down: what the guardian did", required=False),
)


# What collecting a run's records adds (analysis/store.py computes them; the tables' columns
# are results/tables.py's COLUMNS), and what a push adds.
COLLECTED: tuple[RunFile, ...] = (
    RunFile("messages.parquet", "collection (analysis/store.py)",
            "one row per message: association, seq, stream, size, t_gen_ns, t_sent_ns, t_rx_ns, mtt_ns, path, "
            "from_addr, t_rel_ns (from t0)"),
    RunFile("path_events.parquet", "collection (analysis/store.py)",
            "timeline actions, SCTP_PEER_ADDR_CHANGE notifications and the agents' own events (PRIMARY_SET, "
            "ASCONF_*, SEND_FAILED, POLICY)"),
    RunFile("path_samples.parquet", "collection (analysis/store.py)",
            "SCTP_GET_PEER_ADDR_INFO samples per association, endpoint and path"),
    RunFile("params.json", "collection (analysis/store.py)",
            "requested values, sysctls read back, association values read back (per association under `associations`)"),
    RunFile("frames.parquet", "collection (analysis/frames.py)", "video associations: one row per frame",
            required=False),
    RunFile("tcp_throughput.parquet", "collection (analysis/traffic.py)", "competing TCP flows' iperf3 intervals",
            required=False),
    RunFile("cum_tsn.parquet", "collection (analysis/cumtsn.py)",
            "with captures: per SACK reaching a client, its cumulative TSN ack", required=False),
    RunFile("summary.json", "collection (analysis/store.py; the runner when collecting failed)",
            "the run's metrics (results/summary.py: RunMetrics), status ok, disturbed or failed, error, the "
            "self-check, the detection model, events, each association's metrics under `associations`, load, "
            "handover; traffic, cum_tsn, asconf and wire (captures around handovers) where they apply; telemetry after a push"),
    RunFile("cost.json", "the runner (orchestration/runner.py, through results/cost.py)",
            "where the run's host time went: each phase (plan, boot, setup, agents, workload, drain, teardown, halt, "
            "collection, analysis) with its wall seconds, CPU seconds of the whole process tree (the guest included) "
            "and voluntary context switches; the host's clock, not the run's (backends/phases.py)", required=False),
    RunFile("telemetry.json", "the telemetry stream or push (telemetry/stream.py, through results/ledger.py)", "what was sent to InfluxDB",
            required=False),
    RunFile("telemetry.log", "the telemetry stream (telemetry/stream.py, through results/ledger.py)",
            "the live writer's standard error: why, when it left no ledger", required=False),
)


def render() -> str:
    width = max(len(f.name) for f in FILES + COLLECTED)
    lines = []
    for f in FILES + COLLECTED:
        lines.append(f"{f.name:<{width}}  {f.writer}{'' if f.required else ' (when it applies)'}")
        lines.append(f"{'':<{width}}    {f.content}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(), end="")
