"""The emulator's shaping as ipfw/Dummynet commands, for a FreeBSD emulator box (untested).

The seeds' testbeds shaped their paths with Dummynet on FreeBSD. No FreeBSD machine or image
could be reached where sctpbench is built, so this rendering is printed (`sctpbench plan
FILE --backend ansible` with the emulator's `system: freebsd` in the inventory) for a person to
apply and check, never run: a rendering nobody has run is a starting point, not a result.

Each direction of a path is one pipe, applied as packets leave the emulator toward the far
host (where the netem emulator shapes, `Link.shaped_at`): delay (Dummynet's granularity
is one tick, 1 ms at HZ=1000), rate and random loss. What Dummynet has no words for (jitter,
duplication, corruption, reordering, Gilbert-Elliott loss, correlation) is listed, not
approximated. A path's `fail` is a deny rule on the emulator's two interfaces of the path.
"""

from __future__ import annotations

from typing import Any

from sctpbench.plan.data import Link, Plan

PIPE_RULE_BASE = 1000  # ipfw rule numbers: one pipe rule per direction
CUT_RULE_BASE = 500  # deny rules of a failed path come before the pipes
UNSUPPORTED = ("jitter", "duplicate", "corrupt", "reorder", "gilbert_elliott", "loss_correlation", "jitter_correlation",
               "reorder_correlation")


def pipe_config(number: int, shaping: dict[str, Any]) -> str:
    words = [f"ipfw pipe {number} config", f"bw {int(shaping['rate'])}bit/s" if shaping.get("rate") else "",
             f"delay {round(shaping['delay'] / 1e6)}ms", f"plr {shaping['loss'] / 100:g}" if shaping.get("loss") else "",
             f"queue {shaping['queue']}" if shaping.get("queue") else ""]
    return " ".join(w for w in words if w)


def unsupported(shaping: dict[str, Any]) -> list[str]:
    return [k for k in UNSUPPORTED if shaping.get(k)]


def render(plan: Plan, interfaces: dict[str, str]) -> list[str]:
    """The emulator's commands; `interfaces` maps the plan's emulator interface names to the box's."""
    if not any(link.emulator for link in plan.links):
        return ["# no path runs through an emulator: nothing for Dummynet to shape"]
    out = ["# FreeBSD emulator (ipfw + dummynet), UNTESTED: rendered from the plan, never run by sctpbench",
           "kldload -n ipfw dummynet", "sysctl net.inet.ip.forwarding=1 net.inet.ip.fw.one_pass=1",
           "ipfw -q flush", "ipfw -q pipe flush"]
    for index, link in enumerate(plan.links):
        out += _link(index, link, interfaces)
    out.append("ipfw add 65000 allow ip from any to any")
    out += _timeline(plan, interfaces)
    return out


def _link(index: int, link: Link, interfaces: dict[str, str]) -> list[str]:
    out = []
    for offset, direction in enumerate(("forward", "reverse")):
        shaping = link.shaping[direction]
        number = 2 * index + offset + 1
        dev = interfaces.get(link.shaped_at[direction].ifname, link.shaped_at[direction].ifname)
        out.append(f"# path {link.path}, {direction}: leaves the emulator on {dev}")
        if missing := unsupported(shaping):
            out.append(f"#   not expressible in Dummynet, left out: {', '.join(missing)}")
        out += [pipe_config(number, shaping), f"ipfw add {PIPE_RULE_BASE + number} pipe {number} ip from any to any out xmit {dev}"]
    return out


def _timeline(plan: Plan, interfaces: dict[str, str]) -> list[str]:
    out = ["# timeline (t0 + at): what ipfw does for each event on the emulator"]
    index = {link.path: i for i, link in enumerate(plan.links)}
    for action in plan.timeline:
        link = next((lk for lk in plan.links if lk.path == action.target), None)
        if link is None or not link.emulator:
            continue
        rule = CUT_RULE_BASE + index[link.path]
        devs = [interfaces.get(i.ifname, i.ifname) for i in link.emulator]
        at = f"# t0+{action.at_ns / 1e9:.3f}s {action.kind} {action.target}"
        if action.kind == "fail":
            out += [at] + [f"ipfw add {rule} deny ip from any to any in recv {dev}" for dev in devs]
        elif action.kind == "restore":
            out += [at, f"ipfw delete {rule}"]
        else:
            out.append(f"{at}: not rendered for Dummynet")
    return out
