"""The agent's `--arrival schedule --schedule FILE`: a message schedule file replayed exactly.

On the host, a bad file is a usage error (exit 2) naming FILE:LINE, before any socket.
In the guest, a real run whose client follows a schedule: every message goes out at
T + its offset (virtual clock: within 1 ms) with its own size and stream, and arrives.

The experiment file cannot ask for `schedule` yet, so the guest test runs an ordinary
experiment with SCTPBENCH_AGENT pointing at a wrapper (as test_agent_sanitizers.py does
for the sanitizer builds) that swaps the client's --arrival/--size/--rate/--seed for
`--arrival schedule --schedule FILE`. That touches neither plan.json's layout nor the
runner: only the agent's own command line, which RECORDS.md specifies.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sctpbench.collectors import records
from tests.support.schedule import AGENT, AGENT_DIR, DURATION_MS, ROOT, Message, build_agent, schedule, write

LATE_NS = 1_000_000  # virtual clock: a message goes out within 1 ms of its slot

EXPERIMENT = f"""\
name: schedule
topology: {ROOT}/sctpbench/topologies/dual-homed.yaml
sctp: {{nodelay: true, sack_delay: 10ms, streams: 4}}
workload: {{client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: {DURATION_MS}ms}}
"""

# Drops the options a schedule replaces and names the schedule instead. `for a do ...
# shift ... set -- "$@" "$a"` rebuilds the argument list in place (POSIX sh). RUN is how
# both roles are started: the agent itself, or the agent under valgrind.
WRAPPER = """\
#!/bin/sh
agent="$(dirname "$0")/sctpbench-agent"
case "$1" in client) ;; server) exec RUN "$@";; *) exec "$agent" "$@";; esac
skip=0
for a do
    shift
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$a" in --arrival|--size|--rate|--seed) skip=1; continue;; esac
    set -- "$@" "$a"
done
exec RUN "$@" --arrival schedule --schedule "$(dirname "$0")/schedule.txt"
"""
# Any memcheck error or definite leak makes the agent exit 99, and the run fail.
VALGRIND = "valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"



@pytest.fixture(scope="module")
def built() -> None:
    build_agent()


def _wrapper(folder: Path, binary: Path, run: str) -> Path:
    """A wrapper in `folder` (on the host filesystem the guest sees; its /tmp is a tmpfs
    of its own) that starts `binary` through `run`, with schedule.txt beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    os.symlink(binary, folder / "sctpbench-agent")
    (folder / "agent").write_text(WRAPPER.replace("RUN", run))
    (folder / "agent").chmod(0o755)
    return folder


@pytest.fixture
def wrapper(built: None) -> Iterator[Path]:
    folder = AGENT_DIR / "build" / f"schedule-test-{os.getpid()}"
    yield _wrapper(folder, AGENT, '"$agent"')
    shutil.rmtree(folder)


def _run(wrapper: Path, tmp_path: Path, msgs: list[Message], experiment_text: str) -> tuple[records.Records, records.Records]:
    """Runs the experiment with the client on this schedule: the client's and the server's records."""
    write(msgs, wrapper / "schedule.txt")
    experiment = tmp_path / "schedule.yaml"
    experiment.write_text(experiment_text)
    env = os.environ | {"SCTPBENCH_AGENT": str(wrapper / "agent")}
    r = subprocess.run([sys.executable, "-m", "sctpbench.cli", "run", str(experiment), "--json", "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr + r.stdout
    run_dir = Path(json.loads(r.stdout)["runs"][0]["directory"])
    for name in ("main.client", "main.server"):
        stderr = (run_dir / "records" / f"{name}.stderr").read_text()
        assert "runtime error" not in stderr and "ERROR SUMMARY" not in stderr, stderr
    return records.read(run_dir / "records/main.client.rec"), records.read(run_dir / "records/main.server.rec")


def test_every_message_goes_out_on_schedule_with_its_size_and_stream_and_arrives(wrapper: Path, tmp_path: Path) -> None:
    msgs = schedule()
    client, server = _run(wrapper, tmp_path, msgs, EXPERIMENT)

    assert client.meta["arrival"] == "schedule" and client.meta["schedule_messages"] == str(len(msgs))
    assert client.meta["size"] == client.meta["rate"] == "-"
    assert client.params["pr_supported"] == "1"  # some messages have a lifetime
    (t0,) = [int(args) for _, name, args in client.events if name == "start"]
    assert [args for _, name, args in client.events if name == "abandoned"] == ["0\t0"]  # no loss: nothing abandoned

    due = [m for m in msgs if m.offset_ns < DURATION_MS * 1_000_000]
    assert len(due) == len(msgs) - 2
    assert [tx.seq for tx in client.tx] == list(range(len(due)))
    assert client.end is not None and client.end[1] == len(due)
    late = []
    for tx, m in zip(client.tx, due, strict=True):
        assert (tx.stream, tx.size, tx.t_sched_ns) == (m.stream, m.size, t0 + m.offset_ns), (tx, m)
        late.append(tx.t_gen_ns - (t0 + m.offset_ns))
    assert 0 <= min(late) and max(late) <= LATE_NS, (min(late), max(late))

    got = {rx.seq: rx for rx in server.rx}
    assert len(server.rx) == len(got) == len(due)  # every message, once
    for seq, m in enumerate(due):
        assert (got[seq].stream, got[seq].size) == (m.stream, m.size), (got[seq], m)
    assert {tx.seq: tx.t_gen_ns for tx in client.tx} == {rx.seq: rx.t_gen_ns for rx in server.rx}


FAILOVER = f"""\
name: schedule-prsctp
topology: {ROOT}/sctpbench/topologies/dual-homed.yaml
sctp: {{rto_initial: 200ms, rto_min: 200ms, rto_max: 800ms, path_max_retrans: 2, pf_enable: false, sack_delay: 10ms,
        nodelay: true, streams: 2}}
workload: {{client: client, server: server, size: 200B, rate: 50/s, arrival: periodic, duration: 3s}}
events:
  - {{at: 1s, fail: primary}}
"""


def test_messages_with_a_lifetime_are_abandoned_when_their_path_fails(wrapper: Path, tmp_path: Path) -> None:
    # Every 20 ms a reliable message on stream 0 and, 10 ms later, one on stream 1 that
    # PR-SCTP may drop 100 ms after it was sent. The primary path is blackholed at 1 s,
    # and the first retransmission comes 200 ms (RTO.min) later: by then the lifetime
    # is over, so those messages are abandoned (FORWARD-TSN) rather than retransmitted.
    msgs = []
    for k in range(150):
        msgs += [Message(k * 20_000_000, 200, 0, False, 0), Message(k * 20_000_000 + 10_000_000, 200, 1, False, 100)]
    client, server = _run(wrapper, tmp_path, msgs, FAILOVER)

    assert client.params["pr_supported"] == "1"
    (abandoned,) = [args.split("\t") for _, name, args in client.events if name == "abandoned"]
    unsent, sent = (int(n) for n in abandoned)
    assert [tx.seq for tx in client.tx] == list(range(len(msgs)))
    lost = set(range(len(msgs))) - {rx.seq for rx in server.rx}
    assert lost, "nothing was abandoned"
    assert all(msgs[seq].lifetime_ms > 0 for seq in lost)  # every reliable message arrived
    assert unsent + sent >= len(lost)


@pytest.mark.parametrize("tool", ["ubsan", "valgrind"])
def test_a_schedule_run_is_clean_under_ubsan_and_valgrind(built: None, tmp_path: Path, tool: str) -> None:
    # The schedule's paths (variable sizes, the PR-SCTP control message, the abandoned
    # count) under the guest's sanitizers: UBSan aborts on a finding, memcheck exits 99.
    if tool == "ubsan":
        subprocess.run(["make", "-s", "-C", str(AGENT_DIR), "sanitize"], check=True, capture_output=True, text=True)
        binary, run = AGENT_DIR / "build/sctpbench-agent-sanitize", '"$agent"'
    else:
        binary, run = AGENT, VALGRIND + ' "$agent"'
    folder = _wrapper(AGENT_DIR / "build" / f"schedule-test-{tool}-{os.getpid()}", binary, run)
    try:
        msgs = schedule()
        client, server = _run(folder, tmp_path, msgs, EXPERIMENT)
    finally:
        shutil.rmtree(folder)
    due = [m for m in msgs if m.offset_ns < DURATION_MS * 1_000_000]
    assert [(tx.stream, tx.size) for tx in client.tx] == [(m.stream, m.size) for m in due]
    assert sorted(rx.seq for rx in server.rx) == list(range(len(due)))
    assert [args for _, name, args in client.events if name == "abandoned"] == ["0\t0"]
