"""The guest kernel's random numbers come from the run's seed (kernel/patches/0005, random.seed=,
given by the uml backend): on virtual time the same seed draws the same, another seed draws
otherwise. Three draws of the kernel's are read from one short run: netem's random loss (10 % on
the primary, both ways: which messages are lost and retransmitted, so each message's latency),
SCTP's heartbeat jitter (an idle secondary heartbeated every HB.interval + RTO ± RTO/2) and the
association's verification tags and initial TSNs (INIT, INIT-ACK). Before the patch the same seed
gave other draws in every run (the host's entropy, the wall clock, the per-run command line)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from sctpbench.collectors import captures, records
from tests.support.guest_run import run_experiment

ROOT = Path(__file__).resolve().parents[2]
CLIENT_SECONDARY = "198.18.1.1"  # dual-homed.yaml
INIT, INIT_ACK = 1, 2

TOPOLOGY = """\
hosts: [client, server]
paths:
  primary: {between: [client, server], delay: 10ms, rate: 100mbit, queue: 1000, loss: 10%}
  secondary: {between: [client, server], delay: 10ms, rate: 100mbit, queue: 1000}
"""

EXPERIMENT = """\
name: rng
topology: TOPOLOGY
seed: SEED
clock: virtual
sctp: {nodelay: true, sack_delay: 10ms, hb_interval: 100ms, rto_initial: 200ms, rto_min: 200ms, rto_max: 400ms}
workload: {client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: 3s}
measure: {capture: true}
"""


# Two runs of one seed can still differ by a few µs of virtual time (seen: 256 ns to 2.3 µs on
# single messages, in a CI run on a clean clone): below anything the seed decides, whose draws
# move messages and heartbeats by tens of ms (a retransmission, RTO ± 50 %).
CLOCK_NOISE_NS = 10_000
LOSS_DELAYED_NS = 15_000_000  # a message that waited for a retransmission: well above 10 ms one way


@dataclass(frozen=True)
class Draws:
    """What the kernel's random numbers decided in one run, in virtual time from t0."""

    latencies_ns: tuple[int, ...]  # per message received at the server, in order of arrival
    secondary_heartbeats_ns: tuple[int, ...]  # the client's HEARTBEATs on the idle secondary
    tags: tuple[tuple[int, int], ...]  # (vtag, initial TSN) of INIT and INIT-ACK: the client's first TSN, its tag
    rng: str  # guest.json's account of the kernel's seeding
    seed: int  # the run's seed

    @property
    def delayed_by_loss(self) -> list[int]:
        """Which messages (by arrival) the loss draws delayed: lost, or held behind a lost one."""
        return [i for i, lat in enumerate(self.latencies_ns) if lat > LOSS_DELAYED_NS]


def _close(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= CLOCK_NOISE_NS for x, y in zip(a, b, strict=True))


def _draws(tmp_path: Path, seed: int, name: str) -> Draws:
    topology = tmp_path / "lossy.yaml"
    topology.write_text(TOPOLOGY)
    run_dir = run_experiment(tmp_path, EXPERIMENT.replace("TOPOLOGY", str(topology)).replace("SEED", str(seed)), name)
    t0 = json.loads((run_dir / "backend.json").read_text())["t0_realtime_ns"]
    server = records.read(run_dir / "records/main.server.rec")
    heartbeats = [p.time_ns - t0 for p in captures.read(run_dir / "captures/secondary-client.pcap")
                  if p.src == CLIENT_SECONDARY and "HEARTBEAT" in p.chunk_types]
    tags = [(p.vtag, c.initial_tsn or 0) for p in captures.read(run_dir / "captures/primary-client.pcap")
            for c in p.chunks if c.type in (INIT, INIT_ACK)]
    return Draws(tuple(r.t_rx_ns - r.t_gen_ns for r in server.rx), tuple(heartbeats), tuple(tags),
                 json.loads((run_dir / "guest.json").read_text())["rng"], seed)


# Which seed loses what depends on when the kernel draws, which the run's timing before t0
# moves (the checkout's folder, a change of sctpbench's set-up: docs/clocks.md): with 10 % loss
# both ways some seeds lose the handshake on the primary and run on the clean path alone. The
# first of these seeds whose run exercises every draw (loss, heartbeats, tags) is the one run twice.
SEEDS = range(7, 15)


def _exercised(d: Draws) -> bool:
    return (len(d.latencies_ns) == 150 and sum(lat > 50_000_000 for lat in d.latencies_ns) >= 3
            and len(d.secondary_heartbeats_ns) >= 4 and len(d.tags) == 2)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Draws]:
    folder = tmp_path_factory.mktemp("rng")
    tried: dict[int, Draws] = {}
    for seed in SEEDS:
        tried[seed] = _draws(folder, seed, f"first-{seed}")
        if _exercised(tried[seed]):
            return {"first": tried[seed], "again": _draws(folder, seed, "again"), "other": _draws(folder, seed + 100, "other")}
    pytest.fail(f"no seed of {SEEDS} exercised every draw: {tried}")


def test_the_kernel_is_given_the_runs_seed(runs: dict[str, Draws]) -> None:
    for run in runs.values():
        assert run.rng.startswith(f"seeded: random.seed={run.seed:016x} "), run.rng
    assert runs["first"].seed == runs["again"].seed != runs["other"].seed


def test_the_same_seed_draws_the_same(runs: dict[str, Draws]) -> None:
    first, again = runs["first"], runs["again"]
    # Enough of each draw to mean something: loss delayed messages (retransmitted, or held
    # behind one that was: well above the 10 ms one-way delay), the idle path was heartbeated.
    assert len(first.latencies_ns) == 150 and sum(lat > 50_000_000 for lat in first.latencies_ns) >= 3, first.latencies_ns
    assert len(first.secondary_heartbeats_ns) >= 4 and len(first.tags) == 2, first
    assert first.delayed_by_loss == again.delayed_by_loss
    assert _close(first.latencies_ns, again.latencies_ns), [
        (i, a - b) for i, (a, b) in enumerate(zip(first.latencies_ns, again.latencies_ns, strict=True)) if a != b]
    assert _close(first.secondary_heartbeats_ns, again.secondary_heartbeats_ns), (first, again)
    assert first.tags == again.tags


def test_another_seed_draws_otherwise(runs: dict[str, Draws]) -> None:
    first, other = runs["first"], runs["other"]
    assert first.delayed_by_loss != other.delayed_by_loss
    assert not _close(first.secondary_heartbeats_ns, other.secondary_heartbeats_ns)
    assert first.tags != other.tags
