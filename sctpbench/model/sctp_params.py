"""Every SCTP parameter an experiment can set, as data: where it goes in the stack, its
unit, and Linux 6.1's default (the stack default when the experiment leaves it unset).

This is the one list of SCTP keys: the experiment's `sctp:` model is made from it
(model/sctp.py: a key's type from its unit, its bounds and help from `low`, `high` and
`help`), the plan writes the sysctls and buffer sizes from it (an agent option also needs
its flag in plan/build.py's `_agents`, which keeps the agent's argument order), the backend
reads back the sysctls it lists, the report names them by it. The order is the file's:
the model's keys, the schema and every "allowed:" list follow it. Standard library only:
the guest reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Where = Literal["sysctl", "agent", "buffer"]
Unit = Literal["ms", "count", "bool", "bytes", "mtus"]

# `initial_cwnd: unrestricted`: the most MTUs net.sctp.initial_cwnd_mtus takes, a window
# far beyond any send buffer, so the receiver's window is what limits the first flight.
UNRESTRICTED = "unrestricted"
UNRESTRICTED_MTUS = 65535


@dataclass(frozen=True)
class Param:
    key: str  # under `sctp:` in the experiment file
    where: Where  # sysctl: net.sctp.NAME per host; agent: the agents' option NAME; buffer: kernel-wide sizes
    name: str
    unit: Unit
    linux_default: int  # Linux 6.1 (net/sctp/protocol.c, sysctl.c; ms, counts, 0/1, bytes)
    # A sysctl only the project's kernel has (kernel/patches/): an experiment that sets it
    # is refused on a kernel without it; its default (0) is stock Linux behaviour.
    variant: bool = False
    # What the experiment may write, in the unit's terms (ms for timers); None: no bound of
    # the model's (a Duration is never negative; counts and sizes name theirs).
    low: int | None = None
    high: int | None = None
    help: str = ""  # the key's description in the schema and the documentation
    # False for parameters newer than the plans already written (tests/data/golden): the
    # requested values (plan.json, plan/build.py's requested_sctp) list them only when set.
    listed_unset: bool = True
    # A key that decides the same thing another way: setting both is refused (model/crosschecks.py).
    excludes: str | None = None

    @property
    def reported_as(self) -> str:
        """The key of the requested value in plan.json and the report (timers in ms)."""
        return f"{self.key}_ms" if self.unit == "ms" else self.key


# The kernel's SCTP timer sysctls (rto_initial, rto_max, hb_interval) allow at most one day.
TIMER_MAX_MS = 86_400_000
INT_MAX = 2**31 - 1  # the kernel's retransmission counters are int
U16_MAX = 65535
MIN_BUFFER = 4096  # net.core.[rw]mem_* refuse less

PARAMS: tuple[Param, ...] = (
    Param("rto_initial", "sysctl", "rto_initial", "ms", 3000, high=TIMER_MAX_MS),
    Param("rto_min", "sysctl", "rto_min", "ms", 1000, high=TIMER_MAX_MS),
    Param("rto_max", "sysctl", "rto_max", "ms", 60000, high=TIMER_MAX_MS),
    Param("path_max_retrans", "sysctl", "path_max_retrans", "count", 5, low=0, high=INT_MAX),
    Param("association_max_retrans", "sysctl", "association_max_retrans", "count", 10, low=1, high=INT_MAX),
    Param("pf_enable", "sysctl", "pf_enable", "bool", 1),
    Param("pf_retrans", "sysctl", "pf_retrans", "count", 0, low=0, high=U16_MAX, help="at most ps_retrans, 65535 by default"),
    Param("hb_interval", "sysctl", "hb_interval", "ms", 30000, high=TIMER_MAX_MS),
    # The kernel's 1ms to 500ms is the loader's cross-check (model/crosschecks.py), worded as the kernel's range.
    Param("sack_delay", "sysctl", "sack_timeout", "ms", 200),
    Param("sack_freq", "agent", "--sack-freq", "count", 2, low=1, high=INT_MAX),
    Param("nodelay", "agent", "--nodelay", "bool", 0),
    Param("streams", "agent", "--streams", "count", 10, low=1, high=U16_MAX),
    Param("max_burst", "sysctl", "max_burst", "count", 4, low=0, high=INT_MAX,
          help="Max.Burst: new DATA packets per transmission beyond the flight (0: no limit; Linux: 4)"),
    # 0: RFC 4960's min(4*MTU, max(2*MTU, 4380 B)) for a new path, 4*MTU after idling.
    Param("initial_cwnd", "sysctl", "initial_cwnd_mtus", "mtus", 0, variant=True,
          help="stack variant (the project's kernel): a new or idle path's cwnd in MTUs, or unrestricted; "
               "unset: Linux's min(4*MTU, max(2*MTU, 4380 B))"),
    Param("primary_cwnd_carry", "sysctl", "primary_cwnd_carry", "bool", 0, variant=True,
          help="stack variant (the project's kernel): at a primary change the new primary takes the old one's cwnd "
               "and ssthresh where larger"),
    # Seed 004's congestion-control parameter update: cwnd and ssthresh × α = new/old bandwidth.
    Param("primary_cwnd_alpha_permille", "sysctl", "primary_cwnd_alpha", "count", 0, variant=True, low=1, high=1_000_000,
          listed_unset=False,
          help="stack variant (the project's kernel): at a primary change the new primary's cwnd and ssthresh become the "
               "old one's times α, in thousandths (α = new path's bandwidth / old path's: 28646 for 11 Mbit/s after "
               "384 kbit/s); cwnd at least 1 MTU, ssthresh 4; takes the place of primary_cwnd_carry"),
    # Seed 004's own α: the new path's bandwidth by packet pair, the old one's as cwnd/SRTT (kernel/patches/0004).
    Param("primary_cwnd_alpha_estimate", "sysctl", "primary_cwnd_alpha_estimate", "bool", 0, variant=True,
          listed_unset=False, excludes="primary_cwnd_alpha_permille",
          help="stack variant (the project's kernel): α estimated in the stack, as seed 004 does: with each due "
               "heartbeat two MTU-sized heartbeats go back to back on the path, its bandwidth is the MTU over the "
               "gap between their HEARTBEAT-ACKs; at a primary change α = that of the new path / (cwnd/SRTT of the "
               "old one) scales the new primary's cwnd and ssthresh; no estimate yet: the cwnd is left alone"),
    Param("buffer_retransmit", "sysctl", "buffer_retransmit", "bool", 0, variant=True, listed_unset=False,
          help="stack variant (the project's kernel): at a primary change the DATA outstanding on the other paths is "
               "sent again on the new primary, ahead of new data, without a congestion response"),
    # Seed 000 Paper II: the RTO need not double at every timeout.
    Param("rto_backoff_percent", "sysctl", "rto_backoff_pct", "count", 0, variant=True, low=100, high=200,
          listed_unset=False,
          help="stack variant (the project's kernel): a timeout multiplies the RTO by this many percent (capped at "
               "RTO.max): 100 keeps it, 150 grows it by half; unset: Linux doubles it (200)"),
    Param("rcvbuf", "buffer", "rmem", "bytes", 212_992, low=MIN_BUFFER,
          help="receive buffer (net.sctp.sctp_rmem default); the advertised window is about half"),
    Param("sndbuf", "buffer", "wmem", "bytes", 212_992, low=MIN_BUFFER, help="send buffer (net.sctp.sctp_wmem default)"),
)
BY_KEY = {p.key: p for p in PARAMS}

# Not set by experiments, read back because they decide what the others do.
PF_EXPOSE_ENABLE = 2  # include/net/sctp/constants.h: UNSET 0, DISABLE 1, ENABLE 2
# addip_enable, auth_enable, addip_noauth_enable: whether ASCONF (RFC 5061) can run, which
# the plan turns on for address events (plan/dar.py).
# A stack variant's sysctl is read back where the kernel has it (backends/netns/engine.py: `sysctl -e`).
READ_BACK_SYSCTLS: tuple[str, ...] = tuple(p.name for p in PARAMS if p.where == "sysctl") + (
    "pf_expose", "addip_enable", "auth_enable", "addip_noauth_enable")


def sysctl_value(param: Param, value: int | bool | str) -> str:
    """The value as the sysctl takes it: timers in whole ms (the spec refuses fractions)."""
    if param.unit == "ms":
        return str(int(value) // 1_000_000)
    if param.unit == "mtus" and value == UNRESTRICTED:
        return str(UNRESTRICTED_MTUS)
    if param.unit == "bool":
        return "1" if value else "0"
    return str(value)


def variant_sysctls(values: object) -> list[tuple[str, str]]:
    """(key, net.sctp name) of each stack variant an `sctp:` mapping sets."""
    return [(p.key, p.name) for p in PARAMS if p.variant and getattr(values, p.key, None) is not None]
