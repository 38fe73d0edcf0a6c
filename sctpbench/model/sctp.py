"""The `sctp:` mapping (the experiment's, and an association's own), as a model made from
sctp_params.PARAMS: one field per parameter, in the table's order, its type from the unit.

Adding a parameter is a row in that table; nothing here names a key. The fields are made
by create_model, so mypy sees them as Any (as it sees the shaping keys, fields.py).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, create_model

from sctpbench.model.fields import CwndMtus, Duration, Model, Size
from sctpbench.model.sctp_params import PARAMS, Param

NS_PER_MS = 1_000_000

# The written value of each unit; bounds come from the parameter.
_VALUE_TYPES: dict[str, Any] = {"ms": Duration, "count": int, "bool": bool, "mtus": CwndMtus, "bytes": Size}


def _value_type(param: Param) -> Any:
    """The parameter's type as the file writes it: its unit's, within its bounds (timers in ns)."""
    scale = NS_PER_MS if param.unit == "ms" else 1
    bounds: dict[str, Any] = {name: bound * scale for name, bound in (("ge", param.low), ("le", param.high)) if bound is not None}
    base = _VALUE_TYPES[param.unit]
    return Annotated[base, Field(**bounds)] if bounds else base


def _field(param: Param) -> tuple[Any, Any]:
    """Optional, unset by default: an unset parameter keeps the kernel's value."""
    return _value_type(param) | None, Field(default=None, description=param.help) if param.help else None


_FIELDS: dict[str, Any] = {param.key: _field(param) for param in PARAMS}
_Fields = create_model("SctpFields", __base__=Model, **_FIELDS)


class SctpParams(_Fields):  # type: ignore[misc,valid-type]
    """Kernel SCTP parameters; an unset one keeps the kernel's default."""

