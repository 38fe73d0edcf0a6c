"""Quantities written the way people write them: `10ms`, `6mbit`, `200B`, `1%`.

Values are kept as integers in one base unit each (nanoseconds, bits per second,
bytes) so that plans and metrics never carry float rounding of the input.
"""

from __future__ import annotations

import re

_NUMBER = r"(\d+(?:\.\d+)?|\.\d+)"

_DURATION_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000, "min": 60_000_000_000}
_RATE_UNITS = {
    "bit": 1, "kbit": 1_000, "mbit": 1_000_000, "gbit": 1_000_000_000,
    "bps": 8, "kbps": 8_000, "mbps": 8_000_000, "gbps": 8_000_000_000,
}
_SIZE_UNITS = {"b": 1, "kb": 1_000, "kib": 1_024, "mb": 1_000_000, "mib": 1_048_576}

DURATION_HELP = "a number with a unit ns, us, ms, s or min (e.g. 200ms)"
RATE_HELP = "a number with a unit bit, kbit, mbit, gbit (bits/s) or bps, kbps, mbps (bytes/s), e.g. 6mbit"
SIZE_HELP = "a number of bytes, optionally with a unit B, KB, KiB, MB, MiB (e.g. 200B)"
PERCENT_HELP = "a percentage from 0 to 100 (e.g. 1% or 0.5)"
MESSAGE_RATE_HELP = "messages per second, as a number or with /s (e.g. 50/s)"


def _split(text: object, units: dict[str, int], help_text: str, what: str) -> tuple[float, int]:
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise ValueError(f"{text!r} is not {what}; allowed: {help_text}")
    m = re.fullmatch(_NUMBER + r"\s*([A-Za-z]*)", str(text).strip())
    if not m:
        raise ValueError(f"{text!r} is not {what}; allowed: {help_text}")
    unit = m.group(2).lower()
    if unit not in units:
        raise ValueError(f"{text!r} is not {what}; allowed: {help_text}")
    return float(m.group(1)), units[unit]


def parse_duration(text: object) -> int:
    """Duration in nanoseconds. A bare number is refused: `10` could be ms or s."""
    if isinstance(text, (int, float)) and not isinstance(text, bool) and text == 0:
        return 0
    number, scale = _split(text, _DURATION_UNITS | {"": 0}, DURATION_HELP, "a duration")
    if scale == 0:
        raise ValueError(f"{text!r} is not a duration (the unit is missing); allowed: {DURATION_HELP}")
    return round(number * scale)


def parse_rate(text: object) -> int:
    """Rate in bits per second."""
    number, scale = _split(text, _RATE_UNITS, RATE_HELP, "a rate")
    value = round(number * scale)
    if value <= 0:
        raise ValueError(f"{text!r} is not a positive rate; allowed: {RATE_HELP}")
    return value


def parse_size(text: object) -> int:
    """Size in bytes; a bare number means bytes."""
    number, scale = _split(text, _SIZE_UNITS | {"": 1}, SIZE_HELP, "a size")
    return round(number * scale)


def parse_percent(text: object) -> float:
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        m = re.fullmatch(_NUMBER + r"\s*%?", str(text).strip())
        if not m:
            raise ValueError(f"{text!r} is not a percentage; allowed: {PERCENT_HELP}")
        value = float(m.group(1))
    if not 0.0 <= value <= 100.0:
        raise ValueError(f"{text!r} is out of range; allowed: {PERCENT_HELP}")
    return value


def parse_message_rate(text: object) -> float:
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        m = re.fullmatch(_NUMBER + r"\s*(/s)?", str(text).strip())
        if not m:
            raise ValueError(f"{text!r} is not a message rate; allowed: {MESSAGE_RATE_HELP}")
        value = float(m.group(1))
    if value <= 0:
        raise ValueError(f"{text!r} is not a positive message rate; allowed: {MESSAGE_RATE_HELP}")
    return value


def format_duration(ns: int) -> str:
    """Shortest exact form, as tc and people read it (`10ms`, `1500us`)."""
    for unit in ("s", "ms", "us"):
        scale = _DURATION_UNITS[unit]
        if ns % scale == 0:
            return f"{ns // scale}{unit}"
    return f"{ns}ns"


def format_rate(bps: int) -> str:
    for unit in ("gbit", "mbit", "kbit"):
        scale = _RATE_UNITS[unit]
        if bps % scale == 0:
            return f"{bps // scale}{unit}"
    return f"{bps}bit"


def ns_to_ms(ns: int) -> int:
    """Whole milliseconds, the unit of the kernel's SCTP sysctls; refuses to round silently."""
    if ns % 1_000_000:
        raise ValueError(f"{format_duration(ns)} is not a whole number of milliseconds")
    return ns // 1_000_000
