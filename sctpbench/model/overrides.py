"""`--set KEY=VALUE`: a dotted key and a YAML value put into the file's data before validation,
so a message about the value names the `--set` (wording.Source) rather than the file.
"""

from __future__ import annotations

from typing import Any

from sctpbench.model import inputfile
from sctpbench.model.errors import SpecError
from sctpbench.model.wording import set_label, shown_key


def parse_override(text: str) -> tuple[tuple[str, ...], Any]:
    """`sctp.rto_min=200ms` → (("sctp", "rto_min"), "200ms"); the value is read as YAML."""
    key, sep, value = text.partition("=")
    if not sep or not key or any(not part for part in key.split(".")):
        raise SpecError(f"{set_label(text)}: expected KEY=VALUE with a dotted key (e.g. sctp.rto_min=200ms)")
    try:
        parsed = inputfile.parse(value, set_label(text))[0] if value != "" else ""
    except SpecError:  # not YAML, or beyond a limit: the text as written, which validation judges
        parsed = value
    return tuple(key.split(".")), parsed


def as_written(value: Any) -> str:
    """A YAML value as a person wrote it: the form an override and a label carry, and how a
    campaign's tables hold a swept value (0.72, 1, true, null, 96.15/s, 2024-01-01, [a, b])."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return repr(value)
    import yaml  # noqa: PLC0415 - only for values beyond numbers and words

    return yaml.safe_dump(value, default_flow_style=True, width=10**6).strip().removesuffix("...").strip()


def _is_index(part: str) -> bool:
    # Checked before int(): Python refuses int() of more than 4,300 digits with a bare ValueError.
    return part.isdigit() and len(part) <= 9


def apply_override(data: Any, key: tuple[str, ...], value: Any, text: str) -> None:
    """Put `value` at `key` in the data as read; `text` (the --set as written) names it in a message."""
    node = data
    for i, part in enumerate(key[:-1]):
        if isinstance(node, list):
            if not _is_index(part) or int(part) >= len(node):
                raise SpecError(f"{set_label(text)}: {shown_key(key[: i + 1])}: no such list item (the list has {len(node)})")
            node = node[int(part)]
        elif isinstance(node, dict):
            node = node.setdefault(part, {})
        else:
            raise SpecError(f"{set_label(text)}: {shown_key(key[:i])} is not a mapping")
    last = key[-1]
    if isinstance(node, list):
        if not _is_index(last) or int(last) >= len(node):
            raise SpecError(f"{set_label(text)}: {shown_key(key)}: no such list item (the list has {len(node)})")
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise SpecError(f"{set_label(text)}: {shown_key(key[:-1])} is not a mapping")
