"""Read agent record files (format: workloads/agent/RECORDS.md) into typed rows.

Reading is tolerant of a truncated last line, because a run that was interrupted keeps
what its agents had written so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Tx:
    t_gen_ns: int
    seq: int
    stream: int
    size: int
    t_sent_ns: int
    # The schedule's time for this message; None for saturate, and in files written
    # before the agent recorded it.
    t_sched_ns: int | None = None


@dataclass(frozen=True)
class Rx:
    t_rx_ns: int
    seq: int
    stream: int
    size: int
    t_gen_ns: int
    from_addr: str


@dataclass(frozen=True)
class AddrChange:
    t_ns: int
    addr: str
    state: str
    error: int


@dataclass(frozen=True)
class PathSample:
    t_ns: int
    addr: str
    state: str
    cwnd: int
    srtt_raw: int
    rto_ms: int
    mtu: int
    primary: bool


@dataclass(frozen=True)
class CongestionSample:
    """The primary path's congestion state in bytes (`cc` record, from the kernel's sock_diag
    `struct sctp_info`): what SCTP_GET_PEER_ADDR_INFO leaves out (ssthresh, flight size)."""

    t_ns: int
    primary: str
    cwnd: int
    ssthresh: int
    flight_size: int
    partial_bytes_acked: int


@dataclass(frozen=True)
class SendFail:
    """SCTP_SEND_FAILED_EVENT: a message the association gave up on."""

    t_ns: int
    error: int
    seq: int | None  # the message's sequence number mod 2³², None when the kernel gave no context


@dataclass(frozen=True)
class PolicyInput:
    """What a policy saw of one path when it decided (one PATH field of a `policy` record)."""

    addr: str
    state: str
    srtt_ms: float | None
    rto_ms: float | None
    cwnd: int | None
    short_ms: float | None  # the predictive policy's averages; None for the others
    long_ms: float | None
    signal_dbm: float | None  # the signal policy's trace value; None for the others


def _number(text: str) -> float | None:
    return None if text in ("", "-") else float(text)


@dataclass(frozen=True)
class PolicyDecision:
    """A path-selection policy's decision (`policy` record): switch, switch-failed, guard or cancel."""

    t_ns: int
    decision: str
    before: str  # primary address before ("-" if unknown)
    after: str   # and after (== before except for a switch)
    candidate: str
    reason: str
    paths: tuple[str, ...]  # the inputs: ADDR,STATE,SRTT_MS,RTO_MS,CWND,SHORT_MS,LONG_MS[,SIGNAL_DBM] per path

    def inputs(self) -> list[PolicyInput]:
        """The PATH fields read: `-` (not known, or not this policy's) is None."""
        out = []
        for field_ in self.paths:
            f = field_.split(",") + [""] * 8
            cwnd = _number(f[4])
            out.append(PolicyInput(f[0], f[1], _number(f[2]), _number(f[3]), None if cwnd is None else int(cwnd),
                                   _number(f[5]), _number(f[6]), _number(f[7])))
        return out


@dataclass(frozen=True)
class SchedDecision:
    """A multipath scheduler's choice of path for one message (`sched` record)."""

    t_ns: int
    seq: int
    stream: int
    size: int
    ordered: bool
    scheduler: str
    chosen: str  # the peer address the message was sent to, "-" when the stack chose
    reason: str
    paths: tuple[str, ...]  # the inputs: ADDR,STATE,SRTT_MS,CWND,QUEUED_BYTES,EDT_MS,EFF_MS per path


@dataclass
class Records:
    role: str = ""
    meta: dict[str, str] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    peers: list[str] = field(default_factory=list)
    tx: list[Tx] = field(default_factory=list)
    rx: list[Rx] = field(default_factory=list)
    addr: list[AddrChange] = field(default_factory=list)
    path: list[PathSample] = field(default_factory=list)
    cc: list[CongestionSample] = field(default_factory=list)
    assoc: list[tuple[int, str, str]] = field(default_factory=list)
    events: list[tuple[int, str, str]] = field(default_factory=list)
    sendfail: list[SendFail] = field(default_factory=list)
    policy: list[PolicyDecision] = field(default_factory=list)
    sched: list[SchedDecision] = field(default_factory=list)
    other: list[list[str]] = field(default_factory=list)
    end: tuple[int, int] | None = None


def parse(lines: list[str]) -> Records:
    rec = Records()
    for line in lines:
        if not line.endswith("\n"):
            break  # a partly written last line
        f = line.rstrip("\n").split("\t")
        kind = f[0]
        try:
            if kind.startswith("#"):
                continue
            if kind == "meta":
                rec.meta[f[1]] = f[2] if len(f) > 2 else ""
            elif kind == "param":
                rec.params[f[2]] = f[3]
            elif kind == "peer":
                rec.peers.append(f[2])
            elif kind == "tx":
                sched = int(f[6]) if len(f) > 6 and f[6] != "-" else None
                rec.tx.append(Tx(int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]), sched))
            elif kind == "rx":
                rec.rx.append(Rx(int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]), f[6]))
            elif kind == "addr":
                rec.addr.append(AddrChange(int(f[1]), f[2], f[3], int(f[4])))
            elif kind == "path":
                rec.path.append(
                    PathSample(int(f[1]), f[2], f[3], int(f[4]), int(f[5]), int(f[6]), int(f[7]), f[8] == "1")
                )
            elif kind == "cc":
                rec.cc.append(CongestionSample(int(f[1]), f[2], int(f[3]), int(f[4]), int(f[5]), int(f[6])))
            elif kind == "assoc":
                rec.assoc.append((int(f[1]), f[2], "\t".join(f[3:])))
            elif kind == "event":
                rec.events.append((int(f[1]), f[2], "\t".join(f[3:])))
            elif kind == "sendfail":
                rec.sendfail.append(SendFail(int(f[1]), int(f[2]), None if f[3] == "-" else int(f[3])))
            elif kind == "policy":
                rec.policy.append(PolicyDecision(int(f[1]), f[2], f[3], f[4], f[5], f[6], tuple(f[7:])))
            elif kind == "sched":
                rec.sched.append(SchedDecision(int(f[1]), int(f[2]), int(f[3]), int(f[4]), f[5] == "o", f[6], f[7], f[8],
                                               tuple(f[9:])))
            elif kind == "end":
                rec.end = (int(f[1]), int(f[2]))
            else:
                rec.other.append(f)
        except (IndexError, ValueError) as e:
            raise ValueError(f"bad {kind!r} record: {line.strip()!r} ({e})") from None
    rec.role = rec.meta.get("role", "")
    return rec


def read(path: Path) -> Records:
    if not path.exists():
        return Records()
    with open(path) as f:
        return parse(f.readlines())
