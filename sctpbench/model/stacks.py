"""The SCTP stack an association runs on: `linux` (the guest kernel's, the default) or
`usrsctp` (FreeBSD's stack as a user-space library, over UDP encapsulation; the agent
build/sctpbench-agent-usrsctp, workloads/agent/RECORDS.md "The usrsctp agent").

Which `sctp:` keys mean something on usrsctp, the agent option each becomes, and the
stack's own parameters (`usrsctp:`: CMT mode and stream scheduler). Standard library and
pydantic only: the model layer.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from sctpbench.model.fields import Model

Stack = Literal["linux", "usrsctp"]
STACK_DEFAULT: Stack = "linux"

# sctp: key → the usrsctp agent's option; timers in ms.  Every other key has no meaning
# there (kernel sysctls, the project's kernel variants, kernel-wide buffers) and is refused.
USRSCTP_OPTIONS: dict[str, str] = {
    "rto_initial": "--rto-initial",
    "rto_min": "--rto-min",
    "rto_max": "--rto-max",
    "path_max_retrans": "--path-max-retrans",
    "hb_interval": "--hb-interval",
    "sack_delay": "--sack-delay",
    "sack_freq": "--sack-freq",
    "nodelay": "--nodelay",
    "streams": "--streams",
    "max_burst": "--max-burst",
}

# SCTP_SS_* in usrsctp.h's order; the agent's --stream-scheduler words.
STREAM_SCHEDULERS = ("default", "round-robin", "round-robin-packet", "priority", "fair-bandwidth", "first-come")
StreamScheduler = Literal["default", "round-robin", "round-robin-packet", "priority", "fair-bandwidth", "first-come"]


class UsrsctpParams(Model):
    """The usrsctp stack's own parameters; an unset one keeps usrsctp's default."""

    cmt: Annotated[int, Field(ge=0, le=4)] | None = Field(
        default=None, description="SCTP_CMT_ON_OFF: 0 off, 1 CMT, 2 CMT/RPv1, 3 CMT/RPv2, 4 MPTCP-like (usrsctp: 0)")
    stream_scheduler: StreamScheduler | None = Field(
        default=None, description="SCTP_PLUGGABLE_SS, the sender's stream scheduler (usrsctp: default, first come)")


def usrsctp_refused(keys: list[str]) -> list[str]:
    """The keys among `keys` that usrsctp has no option for."""
    return [k for k in keys if k not in USRSCTP_OPTIONS]
