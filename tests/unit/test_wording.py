"""How a refused experiment is worded (model/wording.py), piece by piece on constructed errors:
where (the line, or the --set to blame), the key, and what is wrong, with long inputs cut at
their limits (tests/unit/test_hostile_input.py and test_spec.py go through the loader)."""

from __future__ import annotations

from typing import Annotated, Any

from sctpbench.model import wording
from sctpbench.model.experiment import Experiment
from sctpbench.model.wording import Source

SOURCE = Source("x.yaml", {(): 1, ("sctp",): 3, ("sctp", "rto_min"): 4}, {("workload",): "workload.rate=5"})


def test_a_message_names_the_deepest_line_known_or_the_set_that_put_the_key_there() -> None:
    assert SOURCE.where(("sctp", "rto_min")) == "x.yaml:4"
    assert SOURCE.where(("sctp", "rto_max")) == "x.yaml:3"  # the section's line
    assert SOURCE.where(("other",)) == "x.yaml:1"
    assert SOURCE.where(("workload", "rate", "x")) == "--set workload.rate=5"
    blamed = Source("x.yaml", {("sctp", "rto_min"): 4}, {("sctp",): "sctp={rto_min: soon}"})
    assert blamed.where(("sctp", "rto_min")) == "--set sctp={rto_min: soon}"  # the override, not the file's deeper line
    assert Source("y.yaml", {}, {}).where(("a",)) == "y.yaml"


def test_long_inputs_are_cut_at_their_limits() -> None:
    assert wording.set_label("a" * 100) == "--set " + "a" * 100
    assert wording.set_label("a" * 101) == "--set " + "a" * 100 + "… (101 characters)"
    assert wording.short("a" * 58) == repr("a" * 58)  # 60 characters with its quotes
    assert wording.short("a" * 59) == repr("a" * 59)[:60] + "… (61 characters)"
    assert wording.short("abcdef", 5) == "'abcd… (8 characters)"
    assert wording.shown_key(("a" * 200,)) == "a" * 200
    assert wording.shown_key(("a" * 100, "b" * 100)) == "a" * 100 + "." + "b" * 99 + "… (201 characters)"
    assert wording.shown_key(()) == "(top level)"


def test_a_child_is_found_by_key_as_given_or_as_text_and_by_index() -> None:
    assert wording._child({"1": 5}, 1) == 5 and wording._child({1: 6}, 1) == 6
    assert wording._child([1, 2], "1") == 2 and wording._child([1, 2], "2") is None and wording._child([1, 2], "x") is None
    assert wording._child("text", 0) is None


def _error(kind: str, loc: tuple[str, ...], value: Any, **ctx: Any) -> dict[str, Any]:
    return {"type": kind, "loc": loc, "input": value, "ctx": ctx, "msg": "Input should be an integer"}


def test_each_kind_of_bad_value_is_worded_with_what_is_allowed() -> None:
    detail = wording.value_detail
    assert detail(_error("string_too_long", ("name",), "abc", max_length=2)) == "'abc' is too long; allowed: at most 2 characters"
    assert detail(_error("literal_error", ("k",), "x", expected="'a' or 'b'")) == "'x' is not allowed; allowed: 'a' or 'b'"
    words = {"less_than_equal": "at most", "greater_than_equal": "at least", "less_than": "less than", "greater_than": "more than"}
    for kind, said in words.items():
        # a duration's bound in the file's units; another number's as it is
        assert detail(_error(kind, ("sctp", "rto_min"), 5, bound=1_000_000)) == f"5 is out of range; allowed: {said} 1ms"
        assert detail(_error(kind, ("sctp", "path_max_retrans"), 5, bound=1_000_000)) == f"5 is out of range; allowed: {said} 1000000"
    assert detail(_error("int_parsing", ("k",), "x")) == "Input should be an integer (got 'x')"
    long = "z" * 300
    cut = detail(_error("value_error", ("k",), long, error=ValueError(f"bad {long!r} here")))
    assert cut.startswith("bad 'zzz") and cut.endswith("… (302 characters) here") and len(cut) < 120


def test_a_pattern_is_described_by_its_own_rule() -> None:
    detail = lambda loc, pattern: wording.value_detail(_error("string_pattern_mismatch", loc, "zz", pattern=pattern))  # noqa: E731
    assert detail(("a", "b"), "^q$") == "'zz' does not have the expected form; allowed: text matching ^q$"
    assert detail(("influx", "url"), "^q$") == f"'zz' is not a valid URL; allowed: {wording.FIELD_HELP[('influx', 'url')]}"
    assert detail(("a", "b"), wording.NAME_PATTERN) == f"'zz' is not a valid name; allowed: {wording.NAME_HELP}"
    assert detail(("a", "b"), r"^[A-Za-z0-9][A-Za-z0-9_.-]*$") == f"'zz' is not a valid name; allowed: {wording.FILE_NAME_HELP}"


def test_an_unknown_or_missing_key_names_the_keys_of_its_section() -> None:
    sctp = ", ".join(Experiment.model_fields["sctp"].annotation.model_fields)  # type: ignore[union-attr]
    assert wording.describe(_error("extra_forbidden", ("sctp", "bogus"), 1), SOURCE) == f"x.yaml:3: sctp.bogus: unknown key; allowed: {sctp}"
    assert wording.describe(_error("extra_forbidden", ("nowhere", "bogus"), 1), SOURCE) == (
        "x.yaml:1: nowhere.bogus: unknown key; allowed: see the documentation")
    assert wording.describe(_error("missing", ("topology",), {}), SOURCE) == (
        "x.yaml:1: topology: required key is missing (a mapping with keys hosts, paths, emulator, source_routing)")
    assert wording.describe(_error("missing", ("sctp", "rto_min"), {}), SOURCE) == "x.yaml:4: sctp.rto_min: required key is missing"
    # a validator's step in the location is no key
    assert wording.describe(_error("int_parsing", ("sctp", "function-after[x]", "rto_min"), "q"), SOURCE) == (
        "x.yaml:4: sctp.rto_min: Input should be an integer (got 'q')")


def test_a_bound_is_worded_in_the_units_of_the_field_the_whole_key_names() -> None:
    detail = lambda loc, data=None: wording.value_detail(  # noqa: E731
        _error("greater_than_equal", loc, 5, ge=100_000_000), data)
    tcp = {"traffic": [{"kind": "tcp", "sample_interval": 5}]}
    # a tcp flow's sample_interval is a duration; the kind comes from the input, the base flow has no such field
    assert detail(("traffic", "0", "sample_interval"), tcp) == "5 is out of range; allowed: at least 100ms"
    assert detail(("traffic", "0", "sample_interval")) == "5 is out of range; allowed: at least 100000000"
    assert detail(("workload", "sctp", "rto_min")) == "5 is out of range; allowed: at least 100ms"  # the association's sctp:
    assert detail(("nowhere", "x")) == "5 is out of range; allowed: at least 100000000"  # no model there: the number


def test_a_union_of_several_kinds_is_not_followed_and_an_optional_one_is() -> None:
    assert wording._unwrap(Annotated[list[int], "meta"] | None) == list[int]
    assert wording._unwrap(int | str | None) == int | str | None
    assert wording._unwrap(Annotated[list[int] | None, "meta"]) == list[int]


def test_an_unknown_key_inside_an_event_or_a_list_entry_names_the_keys_of_its_own_section() -> None:
    from sctpbench.model.experiment import Workload
    from sctpbench.model.fields import DirectionOverride

    degrade = {"events": [{"at": "1s", "degrade": "p1", "set": {"bogus": 1}}]}
    shaping = ", ".join(DirectionOverride.model_fields)
    # the event's kind is read from the input (degrade:), its set: is a section of its own
    assert wording.describe(_error("extra_forbidden", ("events", "0", "set", "bogus"), 1), SOURCE, degrade) == (
        f"x.yaml:1: events.0.set.bogus: unknown key; allowed: {shaping}")
    workload = ", ".join(Workload.model_fields)
    assert wording.describe(_error("extra_forbidden", ("workloads", "0", "bogus"), 1), SOURCE) == (
        f"x.yaml:1: workloads.0.bogus: unknown key; allowed: {workload}")
    # a stray top-level kind: is no flow's kind
    assert wording.describe(_error("extra_forbidden", ("sctp", "bogus"), 1), SOURCE, {"kind": "tcp", "sctp": {}}).startswith(
        "x.yaml:3: sctp.bogus: unknown key; allowed: rto_initial, ")


def test_the_url_rule_is_found_by_the_last_two_parts_of_a_deeper_key() -> None:
    error = _error("string_pattern_mismatch", ("set", "influx", "url"), "zz", pattern="^q$")
    assert wording.value_detail(error) == f"'zz' is not a valid URL; allowed: {wording.FIELD_HELP[('influx', 'url')]}"


def test_a_key_past_a_plain_value_has_no_section_to_list() -> None:
    assert wording.describe(_error("missing", ("sctp", "rto_min", "x"), {}), SOURCE) == "x.yaml:4: sctp.rto_min.x: required key is missing"
    assert wording.describe(_error("extra_forbidden", ("sctp", "rto_min", "x"), 1), SOURCE) == (
        "x.yaml:4: sctp.rto_min.x: unknown key; allowed: see the documentation")


def test_describe_reads_the_input_for_a_missing_sections_keys_and_a_bound() -> None:
    from sctpbench.model.fields import DirectionOverride

    degrade = {"events": [{"at": "1s", "degrade": "p1"}]}
    assert wording.describe(_error("missing", ("events", "0", "set"), degrade["events"][0]), SOURCE, degrade) == (
        f"x.yaml:1: events.0.set: required key is missing (a mapping with keys {', '.join(DirectionOverride.model_fields)})")
    tcp = {"traffic": [{"kind": "tcp", "sample_interval": 5}]}
    error = _error("greater_than_equal", ("traffic", "0", "sample_interval"), 5, ge=100_000_000)
    assert wording.describe(error, SOURCE, tcp) == "x.yaml:1: traffic.0.sample_interval: 5 is out of range; allowed: at least 100ms"
