"""Quantities written the way people write them: `10ms`, `6mbit`, `200B`, `1%`.

Values are kept as integers in one base unit each (nanoseconds, bits per second,
bytes) so that plans and metrics never carry float rounding of the input.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable

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


def _unit_regex(names: Iterable[str]) -> str:
    """The units as a regex without flags (JSON Schema has none): `ms` → `[mM][sS]`, since
    the parser lowercases the unit."""
    return "(" + "|".join("".join(f"[{c}{c.upper()}]" for c in name) for name in names) + ")"


# The written forms the parsers accept, as JSON Schema patterns (ECMA-262 and Python alike;
# [0-9] because Python's \d also takes other scripts' digits). Magnitudes are the parsers' to judge.
_NUMBER_FORM = r"([0-9]+(\.[0-9]+)?|\.[0-9]+)"
DURATION_PATTERN = rf"^\s*{_NUMBER_FORM}\s*{_unit_regex(_DURATION_UNITS)}\s*$"
RATE_PATTERN = rf"^\s*{_NUMBER_FORM}\s*{_unit_regex(_RATE_UNITS)}\s*$"
SIZE_PATTERN = rf"^\s*{_NUMBER_FORM}\s*{_unit_regex(_SIZE_UNITS)}?\s*$"
PERCENT_PATTERN = rf"^\s*{_NUMBER_FORM}\s*%?\s*$"
MESSAGE_RATE_PATTERN = rf"^\s*{_NUMBER_FORM}\s*(/s)?\s*$"

# Bounds where the agent, tc, netem or the kernel would refuse (or silently change) a value,
# so that a run fails here rather than after the guest has booted.
MAX_TEXT = 40  # no quantity needs more characters; a million-digit one would cost seconds
MAX_DURATION_NS = 7 * 24 * 3600 * 10**9  # the agent's --duration/--sample-interval limit (MS_MAX, one week)
# netem keeps the delay in 64 ns ticks in a 32-bit field (tc_netem_qopt.latency): 2^32 × 64 ns.
MAX_DELAY_NS = 274_000_000_000
# netem caps jitter at INT_MAX ns (tabledist() takes a s32 sigma), silently.
MAX_JITTER_NS = 2_147_000_000  # 2147ms, the whole milliseconds below it
# tbf's burst (1 ms of the rate, shaping.tbf_burst) is a 32-bit byte count in tc.
MAX_RATE_BPS = 34_000 * 10**9  # 34000gbit, just below 8000 × (2^32 − 1) bit/s
# Below this tbf's token time for two frames overflows tc's 32-bit tick count.
MIN_RATE_BPS = 1_000
MAX_SIZE_BYTES = 2**31 - 1  # socket buffers are int in the kernel; tc queue limits u32
MIN_MESSAGE_RATE, MAX_MESSAGE_RATE = 1e-3, 1e6  # the agent's --rate (RATE_MIN, RATE_MAX in cli.c)


def shown(value: object) -> str:
    """A value for a message, cut when long so the message stays one readable line."""
    if isinstance(value, int) and value.bit_length() > 4 * MAX_TEXT:
        return f"an integer of about {int(value.bit_length() * 0.30103)} digits"
    text = repr(value)
    return text if len(text) <= MAX_TEXT + 2 else f"{text[:MAX_TEXT]}… ({len(text)} characters)"


def _text(value: object) -> str | None:
    """The value as text, or None when it is too long to be a quantity (checked before
    str() of an int: Python refuses more than 4,300 digits with a bare ValueError)."""
    if isinstance(value, int) and value.bit_length() > 4 * MAX_TEXT:
        return None
    text = str(value).strip()
    return text if len(text) <= MAX_TEXT else None


def _split(text: object, units: dict[str, int], help_text: str, what: str) -> tuple[float, int]:
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise ValueError(f"{shown(text)} is not {what}; allowed: {help_text}")
    written = _text(text)
    m = re.fullmatch(_NUMBER + r"\s*([A-Za-z]*)", written) if written is not None else None
    if not m:
        raise ValueError(f"{shown(text)} is not {what}; allowed: {help_text}")
    unit = m.group(2).lower()
    if unit not in units:
        raise ValueError(f"{shown(text)} is not {what}; allowed: {help_text}")
    return float(m.group(1)), units[unit]


def _at_most(value: int, limit: int, text: object, what: str, why: str, fmt: Callable[[int], str]) -> int:
    if value > limit:
        raise ValueError(f"{shown(text)} is too large; allowed: {what} up to {fmt(limit)} ({why})")
    return value


def parse_duration(text: object) -> int:
    """Duration in nanoseconds, at most the agent's week."""
    return _at_most(_duration_ns(text), MAX_DURATION_NS, text, "a duration", "the agent's limit", format_duration)


def _duration_ns(text: object) -> int:
    """Duration in nanoseconds. A bare number is refused: `10` could be ms or s."""
    if isinstance(text, (int, float)) and not isinstance(text, bool) and text == 0:
        return 0
    number, scale = _split(text, _DURATION_UNITS | {"": 0}, DURATION_HELP, "a duration")
    if scale == 0:
        raise ValueError(f"{shown(text)} is not a duration (the unit is missing); allowed: {DURATION_HELP}")
    return round(number * scale)


def parse_delay(text: object) -> int:
    """A netem delay in nanoseconds."""
    return _at_most(_duration_ns(text), MAX_DELAY_NS, text, "a delay", "netem's 32-bit delay in 64 ns ticks", format_duration)


def parse_jitter(text: object) -> int:
    """A netem jitter in nanoseconds."""
    return _at_most(_duration_ns(text), MAX_JITTER_NS, text, "a jitter", "netem caps larger ones at 2^31-1 ns", format_duration)


def parse_rate(text: object) -> int:
    """Rate in bits per second."""
    number, scale = _split(text, _RATE_UNITS, RATE_HELP, "a rate")
    value = round(number * scale)
    if value <= 0:
        raise ValueError(f"{shown(text)} is not a positive rate; allowed: {RATE_HELP}")
    if value < MIN_RATE_BPS:
        raise ValueError(f"{shown(text)} is too small; allowed: a rate from {format_rate(MIN_RATE_BPS)} (tbf's token time in tc's 32-bit ticks)")
    return _at_most(value, MAX_RATE_BPS, text, "a rate", "tc's 32-bit burst of 1 ms of the rate", format_rate)


def parse_size(text: object) -> int:
    """Size in bytes; a bare number means bytes."""
    number, scale = _split(text, _SIZE_UNITS | {"": 1}, SIZE_HELP, "a size")
    return _at_most(round(number * scale), MAX_SIZE_BYTES, text, "a size", "the kernel's int", lambda n: f"{n}B")


def _number(text: object, pattern: str, what: str, help_text: str) -> float:
    """A finite number, given as one or as text matching `pattern`."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        written = _text(text)
        value = float(text) if written is not None else math.inf
    else:
        written = _text(text) if isinstance(text, str) else None
        m = re.fullmatch(_NUMBER + pattern, written) if written is not None else None
        if not m:
            raise ValueError(f"{shown(text)} is not {what}; allowed: {help_text}")
        value = float(m.group(1))
    if not math.isfinite(value):
        raise ValueError(f"{shown(text)} is not a finite number; allowed: {help_text}")
    return value


def parse_percent(text: object) -> float:
    value = _number(text, r"\s*%?", "a percentage", PERCENT_HELP)
    if not 0.0 <= value <= 100.0:
        raise ValueError(f"{shown(text)} is out of range; allowed: {PERCENT_HELP}")
    return value


def parse_message_rate(text: object) -> float:
    value = _number(text, r"\s*(/s)?", "a message rate", MESSAGE_RATE_HELP)
    if value <= 0:
        raise ValueError(f"{shown(text)} is not a positive message rate; allowed: {MESSAGE_RATE_HELP}")
    if not MIN_MESSAGE_RATE <= value <= MAX_MESSAGE_RATE:
        raise ValueError(f"{shown(text)} is out of range; "
                         f"allowed: {MIN_MESSAGE_RATE:g} to {MAX_MESSAGE_RATE:g} messages per second (the agent's --rate)")
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
