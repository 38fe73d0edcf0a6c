"""One direction of a path as tc commands: netem for delay and loss, tbf (or netem) for the rate.

Layout on the shaping interface's egress:

    root 1:  netem   delay, jitter, loss, reorder, duplicate, corrupt   (limit: all packets in flight)
    1:1 10:  tbf     rate                                                (only with a rate)
    10:1 20: pfifo/bfifo                                                 the bottleneck queue

Delay sits before the rate limiter so that packets in flight never count against the
bottleneck's queue: with netem's own `rate` and `limit`, a long delay fills the limit
with packets that are merely travelling and the achieved rate collapses. The sum of the
two stages is the same one-way time as rate-then-delay.

With `rate_model: link` the rate is netem's own instead (`netem delay D rate R`, no tbf):
netem gives each packet its serialization time L/R behind the previous one's, so an isolated
packet takes D + L/R and a burst queues exactly as on a link of rate R (M/D/1 for Poisson
arrivals of one size), where tbf lets a bucket's worth (two frames) pass at once. Its queue
is netem's limit, which also holds the packets in the delay line: `queue` packets are added
to the delay line's room, so the queue is approximate as a drop-tail bound.

Values come as the experiment states them (`Shaping.model_dump()`): times in ns, rate in
bit/s, percentages, queue in packets or bytes.
"""

from __future__ import annotations

import math
from typing import Any

from sctpbench.model.units import format_duration, format_rate

DEFAULT_QUEUE_PACKETS = 1000
# netem must hold every packet that is in its delay line; sized for the smallest packets.
MIN_PACKET_BYTES = 64
MTU_FRAME_BYTES = 1514


def _pct(value: float) -> str:
    return f"{value:g}%"


def netem_args(s: dict[str, Any]) -> list[str]:
    args = ["delay", format_duration(s["delay"])]
    if s["jitter"]:
        args.append(format_duration(s["jitter"]))
        if s.get("jitter_correlation"):
            args.append(_pct(s["jitter_correlation"]))
        if s.get("jitter_distribution"):
            args += ["distribution", s["jitter_distribution"]]
    ge = s.get("gilbert_elliott")
    if ge:
        # netem's gemodel takes p, r, 1-h, 1-k: the loss probabilities in the bad and the good state.
        args += ["loss", "gemodel", _pct(ge["p"]), _pct(ge["r"]), _pct(100 - ge["h"]), _pct(100 - ge["k"])]
    elif s["loss"]:
        args += ["loss", "random", _pct(s["loss"])]
        if s.get("loss_correlation"):
            args.append(_pct(s["loss_correlation"]))
    if s.get("reorder"):
        args += ["reorder", _pct(s["reorder"])]
        if s.get("reorder_correlation"):
            args.append(_pct(s["reorder_correlation"]))
    if s.get("duplicate"):
        args += ["duplicate", _pct(s["duplicate"])]
    if s.get("corrupt"):
        args += ["corrupt", _pct(s["corrupt"])]
    if is_link(s):
        args += ["rate", format_rate(s["rate"])]
    args += ["limit", str(netem_limit(s))]
    return args


def is_link(s: dict[str, Any]) -> bool:
    """Whether the rate is netem's own serializing link (rate_model: link) rather than tbf."""
    return bool(s["rate"]) and s.get("rate_model") == "link"


def netem_limit(s: dict[str, Any]) -> int:
    """Without a rate netem's limit is the queue; with one, it must hold the delay line."""
    if not s["rate"]:
        return s.get("queue") or DEFAULT_QUEUE_PACKETS
    in_flight = s["rate"] / 8 * (s["delay"] + 4 * s["jitter"]) / 1e9 / MIN_PACKET_BYTES
    if is_link(s):  # the queue is netem's own: room for the delay line plus the queue asked for
        return math.ceil(in_flight) + (s.get("queue") or DEFAULT_QUEUE_PACKETS)
    return max(DEFAULT_QUEUE_PACKETS, math.ceil(in_flight) + DEFAULT_QUEUE_PACKETS)


def tbf_burst(s: dict[str, Any]) -> int:
    """Bucket depth in bytes: two frames (or 1 ms at high rates, where per-packet timers
    would cost more than they shape) keeps the rate exact over short intervals."""
    return max(2 * MTU_FRAME_BYTES, math.ceil(s["rate"] / 8 / 1000))


def tbf_args(s: dict[str, Any]) -> list[str]:
    # tbf's own limit only sizes its default child, which the fifo below replaces.
    return ["tbf", "rate", format_rate(s["rate"]), "burst", str(tbf_burst(s)), "limit", str(s.get("queue_bytes") or 1 << 30)]


def fifo_args(s: dict[str, Any]) -> list[str]:
    if s.get("queue_bytes"):
        return ["bfifo", "limit", str(s["queue_bytes"])]
    return ["pfifo", "limit", str(s.get("queue") or DEFAULT_QUEUE_PACKETS)]


def qdisc_commands(dev: str, s: dict[str, Any], verb: str = "add") -> list[list[str]]:
    """tc arguments (without `tc`) that install (`add`) or update (`change`) the shaping."""
    cmds = [["qdisc", verb, "dev", dev, "root", "handle", "1:", "netem", *netem_args(s)]]
    if s["rate"] and not is_link(s):
        cmds.append(["qdisc", verb, "dev", dev, "parent", "1:1", "handle", "10:", *tbf_args(s)])
        cmds.append(["qdisc", verb, "dev", dev, "parent", "10:1", "handle", "20:", *fifo_args(s)])
    return cmds
