"""Video frame traces: the shipped ones and the format's errors (no kernel needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sctpbench.model import videotrace

TRACES = sorted((Path(__file__).resolve().parents[2] / "sctpbench" / "workloads" / "video").glob("*.trace"))
TARGETS = {"384k": 384e3, "1M": 1e6, "2M": 2e6}


@pytest.mark.parametrize("path", TRACES, ids=[p.stem for p in TRACES])
def test_shipped_traces_are_real_encodes_near_their_target_rate(path: Path) -> None:
    frames = videotrace.parse(path.read_text(), str(path))
    assert len(frames) == 100  # 4 s at 25 fps
    assert frames[0].type == "I" and {f.type for f in frames} == {"I", "P", "B"}
    assert [f.time_ns for f in frames] == [i * 40_000_000 for i in range(100)]
    target = TARGETS[path.stem.rsplit("-", 1)[1]]
    assert 0.7 * target < videotrace.bitrate(frames) < 1.3 * target
    # An I frame costs more than the P and B frames around it.
    sizes = {t: [f.size for f in frames if f.type == t] for t in "IPB"}
    assert min(sizes["I"]) > max(sum(sizes["B"]) / len(sizes["B"]), sum(sizes["P"]) / len(sizes["P"]))


def test_a_library_trace_with_other_columns_is_read_with_columns() -> None:
    text = "# ASU-style\n0 I 0 1200\n1 B 33.3 300\n2 b 66.7 310\n"
    frames = videotrace.parse(text, "lib.txt", columns=("number", "type", "time", "size"))
    assert [(f.type, f.time_ns, f.size) for f in frames] == [("I", 0, 1200), ("B", 33_300_000, 300), ("B", 66_700_000, 310)]


@pytest.mark.parametrize(("text", "message"), [
    ("0 0 I 10\n1 40 X 10\n", "v.trace:2: frame type 'X'; allowed: I, P, B"),
    ("0 0 I 10\n1 40 P\n", "v.trace:2: expected 4 columns (number, time, type, size)"),
    ("0 0 I 10\n1 -5 P 10\n", "v.trace:2: times must not go backwards"),
    ("0 0 I 0\n", "v.trace:1: size '0': a whole number of bytes above 0"),
    ("0 soon I 10\n", "v.trace:1: time 'soon' is not a number of milliseconds"),
    ("# nothing\n", "v.trace: no frames"),
])
def test_bad_lines_name_file_and_line(text: str, message: str) -> None:
    with pytest.raises(ValueError) as e:
        videotrace.parse(text, "v.trace")
    assert str(e.value) == message


def test_fragments_cut_a_frame_into_messages_of_at_most_the_size() -> None:
    assert videotrace.fragments(3000, 1200) == [1200, 1200, 600]
    assert videotrace.fragments(1200, 1200) == [1200]
    assert sum(videotrace.fragments(100_000, 65_536)) == 100_000
