"""Handover metrics on hand-made records and messages (no kernel): the decisions behind each
switch, handover delay, MTT around it, path switches, time on each path, delivery shares."""

from __future__ import annotations

from typing import Any

import pytest

from sctpbench.analysis import handover
from sctpbench.analysis.handover import Decision
from sctpbench.analysis.metrics import Message
from sctpbench.collectors import records

MS = 1_000_000
S = 1_000 * MS
PATH_OF = {"198.18.0.2": "primary", "198.18.1.2": "secondary", "198.18.2.2": "third"}
PATHS = ["primary", "secondary", "third"]


def _messages(switch_at_ms: int | None = 3000, total: int = 300, one_way_ms: int = 10, to: str = "secondary") -> list[Message]:
    """A message every 20 ms over "primary", over `to` once generated at or after the switch."""
    out = []
    for seq in range(total):
        t = seq * 20 * MS
        path = to if switch_at_ms is not None and t >= switch_at_ms * MS else "primary"
        out.append(Message(seq, t, t + one_way_ms * MS, path))
    return out


def _event(kind: str, at_ms: int, target: str, detail: str = "", lag_ms: float = 0.0) -> dict[str, Any]:
    at = at_ms * MS
    return {"kind": kind, "target": target, "detail": detail, "at_ns": at, "scheduled_ns": at,
            "applied_ns": at + int(lag_ms * MS), "lag_ns": int(lag_ms * MS)}


def test_a_set_primary_switch_is_delayed_until_the_first_delivery_over_the_new_path() -> None:
    # Switch applied 1 ms after 3 s: the next message leaves at 3020 ms and arrives at 3030 ms.
    messages = _messages(switch_at_ms=3001)
    client = records.Records(events=[(3001 * MS, "primary", "198.18.1.2")])
    decided = handover.decisions(client, [_event("primary", 3000, "secondary", "set_primary")], PATH_OF, PATHS)
    assert decided == [Decision(3001 * MS, "secondary", "set_primary")]
    (switch,) = handover.switches("primary", decided, messages)
    assert (switch.from_path, switch.to, switch.cause) == ("primary", "secondary", "set_primary")
    assert switch.delay_ns == 29 * MS
    summary = switch.to_dict(0)
    assert summary["t_rel_s"] == pytest.approx(3.001) and summary["delay_ms"] == pytest.approx(29.0)
    # The window [2.001 s, 5.001 s) holds messages 101 … 250: 150 of them, all at 10 ms.
    assert summary["messages"] == 150 and summary["undelivered"] == 0
    assert summary["mtt_mean_ms"] == pytest.approx(10.0) and summary["mmtt_ms"] == pytest.approx(10.0)


def test_the_cause_comes_from_the_timeline_step_behind_the_primary_record() -> None:
    client = records.Records(events=[(1000 * MS, "primary", "198.18.1.2"), (4000 * MS, "primary", "198.18.0.2")])
    events = [_event("primary", 1000, "secondary", "handover"), _event("primary", 4000, "primary")]
    assert [d.cause for d in handover.decisions(client, events, PATH_OF, PATHS)] == ["handover", "primary"]


def test_no_switch_gives_no_delay_and_zero_path_switches() -> None:
    metrics = handover.handover_metrics(handover.switches("primary", [], _messages(None)), 0)
    assert metrics == {"handover_delay_ms": None, "handover_delay_max_ms": None, "handover_mtt_mean_ms": None,
                       "handover_mmtt_ms": None, "path_switches": 0}


def test_a_switch_after_which_nothing_arrives_over_the_new_path_has_no_delay() -> None:
    # Everything keeps arriving over the primary (the new path is broken): delay None, the
    # window's messages still count for MTT.
    decided = [Decision(3000 * MS, "secondary", "primary")]
    (switch,) = handover.switches("primary", decided, _messages(None))
    assert switch.delay_ns is None
    m = handover.handover_metrics([switch], 1)
    assert m["handover_delay_ms"] is None and m["handover_delay_max_ms"] is None and m["path_switches"] == 1
    assert m["handover_mtt_mean_ms"] == pytest.approx(10.0)


def test_two_switches_give_mean_and_max_delay_and_mtt_pooled_once() -> None:
    # To secondary at 3 s (a message generated right then arrives 10 ms later), back at 3.5 s,
    # where the message of that moment is slow (515 ms) and the next, at 3.52 s, arrives at
    # 3.53 s: delays 10 and 30 ms. The windows overlap; each message counts once.
    messages = [Message(m.seq, m.t_gen_ns, m.t_rx_ns, "secondary" if 3000 * MS <= m.t_gen_ns < 3500 * MS else "primary")
                for m in _messages(None)]
    messages[175] = Message(175, 3500 * MS, 4015 * MS, "primary")
    decided = [Decision(3000 * MS, "secondary", "policy"), Decision(3500 * MS, "primary", "policy")]
    switches = handover.switches("primary", decided, messages)
    assert [(s.from_path, s.to, s.delay_ns) for s in switches] == [("primary", "secondary", 10 * MS),
                                                                   ("secondary", "primary", 30 * MS)]
    m = handover.handover_metrics(switches, 2)
    assert m["handover_delay_ms"] == pytest.approx(20.0) and m["handover_delay_max_ms"] == pytest.approx(30.0)
    assert m["path_switches"] == 2
    # Windows [2 s, 5 s) and [2.5 s, 5.5 s): messages 100 … 274, once each.
    window = [x for x in messages if 2000 * MS <= x.t_gen_ns < 5500 * MS]
    assert len(window) == 175
    assert m["handover_mmtt_ms"] == pytest.approx(515.0)
    assert m["handover_mtt_mean_ms"] == pytest.approx(sum(x.mtt_ns or 0 for x in window) / len(window) / 1e6)


def test_a_primary_set_to_the_current_primary_is_no_switch_nor_is_the_initial_primary() -> None:
    decided = [Decision(500 * MS, "primary", "primary"), Decision(3000 * MS, "secondary", "set_primary"),
               Decision(4000 * MS, "secondary", "policy")]
    assert handover.primary_changes("primary", decided) == [(3000 * MS, "secondary")]
    assert [s.to for s in handover.switches("primary", decided, _messages())] == ["secondary"]


def test_policy_switches_are_decisions_and_other_policy_records_are_not() -> None:
    def policy(t_ms: int, decision: str, after: str) -> records.PolicyDecision:
        return records.PolicyDecision(t_ms * MS, decision, "198.18.0.2", after, after, "lower srtt", ())
    client = records.Records(policy=[policy(1000, "guard", "198.18.0.2"), policy(2000, "switch", "198.18.1.2"),
                                     policy(2500, "switch-failed", "198.18.0.2")])
    assert handover.decisions(client, [], PATH_OF, PATHS) == [Decision(2000 * MS, "secondary", "policy")]


def test_pingpong_moves_after_the_first_step_are_decisions_of_the_association_with_both_paths() -> None:
    events = []
    for at, near, far in ((1000, "primary", "secondary"), (2500, "secondary", "primary"), (4000, "primary", "secondary")):
        events += [_event("degrade", at, near, f"forward delay 10ms (pingpong to {near})", lag_ms=0.5),
                   _event("degrade", at, far, f"forward delay 80ms (pingpong to {near})", lag_ms=1.0)]
    moves = handover.decisions(records.Records(), events, PATH_OF, PATHS)
    assert moves == [Decision(2501 * MS, "secondary", "pingpong", "primary", changes_primary=False),
                     Decision(4001 * MS, "primary", "pingpong", "secondary", changes_primary=False)]
    assert handover.decisions(records.Records(), events, PATH_OF, ["primary", "third"]) == []
    # A second terminal between other paths starts (its first step) and moves on its own.
    other = [_event("degrade", 1500, "third", "forward delay 10ms (pingpong to third)"),
             _event("degrade", 1500, "secondary", "forward delay 80ms (pingpong to third)"),
             _event("degrade", 3000, "secondary", "forward delay 10ms (pingpong to secondary)"),
             _event("degrade", 3000, "third", "forward delay 80ms (pingpong to secondary)")]
    assert [(m.t_ns, m.to, m.away) for _, m in handover.pingpong_moves(events + other)] == [
        (2501 * MS, "secondary", "primary"), (3000 * MS, "secondary", "third"), (4001 * MS, "primary", "secondary")]
    # A move changes no primary (no path switch) but has a delay: 2.501 s → the first message
    # over secondary, generated at 3 s, arrives at 3.01 s
    switches = handover.switches("primary", moves, _messages(switch_at_ms=3000))
    assert handover.primary_changes("primary", moves) == []
    assert [(s.from_path, s.to, s.delay_ns) for s in switches] == [("primary", "secondary", 509 * MS),
                                                                   ("secondary", "primary", None)]


def test_a_pingpong_that_switches_primaries_is_one_switch_per_move_with_the_pingpong_cause() -> None:
    # switch_primary: each step also has a `primary` step to the path moved onto; the client's
    # PRIMARY_SET records are the decisions, the first step's (to the primary it has) no switch.
    events = []
    for at, near, far in ((1000, "primary", "secondary"), (2500, "secondary", "primary"), (4000, "primary", "secondary")):
        origin = f"pingpong to {near}"
        events += [_event("degrade", at, near, f"forward delay 10ms ({origin})"), _event("degrade", at, far, f"forward delay 80ms ({origin})"),
                   _event("primary", at, near, origin)]
    client = records.Records(events=[(t * MS, "primary", addr) for t, addr in
                                     ((1000, "198.18.0.2"), (2500, "198.18.1.2"), (4000, "198.18.0.2"))])
    decided = handover.decisions(client, events, PATH_OF, PATHS)
    assert [(d.t_ns, d.to, d.cause, d.changes_primary) for d in decided] == [
        (1000 * MS, "primary", "pingpong", True), (2500 * MS, "secondary", "pingpong", True), (4000 * MS, "primary", "pingpong", True)]
    switches = handover.switches("primary", decided, _messages(switch_at_ms=2500))
    assert [(s.from_path, s.to, s.cause) for s in switches] == [("primary", "secondary", "pingpong"), ("secondary", "primary", "pingpong")]
    assert len(handover.primary_changes("primary", decided)) == 2


def test_time_on_each_path_adds_up_to_the_duration() -> None:
    changes = [(500 * MS, "primary"), (3000 * MS, "secondary"), (4500 * MS, "primary"), (9000 * MS, "secondary")]
    seconds = handover.time_on_paths("primary", changes, 1000 * MS, 7000 * MS)
    assert seconds == pytest.approx({"primary": 2.0 + 2.5, "secondary": 1.5})
    assert sum(seconds.values()) == pytest.approx(6.0)
    assert handover.time_on_paths("primary", [], 0, 6 * S) == {"primary": 6.0}
    # A change before the workload starts sets the path it starts on.
    assert handover.time_on_paths("primary", [(0, "secondary")], 1 * S, 3 * S) == pytest.approx({"primary": 0.0, "secondary": 2.0})


def test_delivered_share_per_path() -> None:
    messages = _messages(switch_at_ms=3000) + [Message(999, 0, None, None)]
    assert handover.delivered_share(messages) == pytest.approx({"primary": 0.5, "secondary": 0.5})
    assert handover.delivered_share([]) == {}


def test_path_switches_count_primary_changes_not_every_handover() -> None:
    """A ping-pong move that sets no primary is a handover (it has a delay and a window) but no
    path switch: two handovers, one change of the primary."""
    decided = [Decision(3000 * MS, "secondary", "policy"),
               Decision(4000 * MS, "third", "pingpong", away="secondary", changes_primary=False)]
    switches = handover.switches("primary", decided, _messages())
    changes = handover.primary_changes("primary", decided)
    assert [(s.from_path, s.to) for s in switches] == [("primary", "secondary"), ("secondary", "third")]
    assert changes == [(3000 * MS, "secondary")]
    m = handover.handover_metrics(switches, len(changes))
    assert m["path_switches"] == 1
    assert m["handover_delay_max_ms"] == pytest.approx(10.0)  # the move's delay is None: nothing arrives on third


def test_a_switch_record_without_t0_and_with_nothing_delivered_in_its_window() -> None:
    lost = (Message(0, 2500 * MS, None, None), Message(1, 2600 * MS, None, None))
    summary = handover.Switch(3000 * MS, "primary", "secondary", "policy", None, lost).to_dict(None)
    assert summary == {"t_rel_s": None, "from": "primary", "to": "secondary", "cause": "policy", "delay_ms": None,
                       "mtt_mean_ms": None, "mmtt_ms": None, "messages": 2, "undelivered": 2}
    # One of three delivered: its MTT alone makes the figures (the lost ones are no zero).
    mixed = handover.Switch(3000 * MS, "primary", "secondary", "policy", 5 * MS, (*lost, Message(2, 2700 * MS, 2730 * MS, "secondary")))
    got = mixed.to_dict(1000 * MS)
    assert (got["t_rel_s"], got["delay_ms"], got["mtt_mean_ms"], got["mmtt_ms"], got["undelivered"]) == (2.0, 5.0, 30.0, 30.0, 2)


def test_the_window_runs_from_1_s_before_the_decision_to_2_s_after_it_excluded() -> None:
    """Messages every 20 ms; a decision at 3 s: the one generated at exactly 2 s is in, the one
    at exactly 5 s is out: 150 messages."""
    messages = _messages(None)
    window = handover.in_window(3000 * MS, messages)
    assert (window[0].t_gen_ns, window[-1].t_gen_ns, len(window)) == (2000 * MS, 4980 * MS, 150)


def test_the_delay_counts_a_delivery_at_the_decisions_instant_on_the_new_path_only() -> None:
    messages = [Message(0, 0, 3000 * MS, "primary"), Message(1, 0, 2999 * MS, "secondary"),
                Message(2, 0, 3000 * MS, "secondary"), Message(3, 0, None, "secondary")]
    assert handover.delay_ns(3000 * MS, "secondary", messages) == 0
    assert handover.delay_ns(3000 * MS, "secondary", messages[:2]) is None
    assert handover.delay_ns(2000 * MS, "primary", messages) == 1000 * MS


def test_decisions_leave_out_other_associations_and_other_records_and_sort_their_steps() -> None:
    """A PRIMARY_SET to an address not of this association, another event record and a policy
    switch to another association's address are no decisions; the timeline's steps, given out
    of order, are read in time order; a step without a detail is a plain `primary`, and one
    whose detail is no cause either."""
    client = records.Records(events=[(1000 * MS, "primary", "198.18.9.2"), (1500 * MS, "start", "198.18.1.2"),
                                     (2000 * MS, "primary", "198.18.1.2"), (5000 * MS, "primary", "198.18.0.2"),
                                     (7000 * MS, "primary", "198.18.2.2")],
                             policy=[records.PolicyDecision(2500 * MS, "switch", "198.18.0.2", "198.18.9.2", "198.18.9.2", "x", ())])
    events = [_event("primary", 4000, "primary", "set_primary"), _event("primary", 1900, "secondary", "handover"),
              _event("primary", 6000, "third") | {"detail": None}]
    assert handover.decisions(client, events, PATH_OF, PATHS) == [
        Decision(2000 * MS, "secondary", "handover"), Decision(5000 * MS, "primary", "set_primary"),
        Decision(7000 * MS, "third", "primary")]
    odd = [_event("primary", 1900, "secondary", "whatever")]
    assert [d.cause for d in handover.decisions(client, odd, PATH_OF, PATHS)] == ["primary", "primary", "primary"]


def test_a_pingpong_step_is_read_from_degrade_steps_only_and_a_lone_path_moves_away_from_none() -> None:
    events = [_event("degrade", 1000, "primary", "forward delay 10ms (pingpong to primary)"),
              _event("restore", 1000, "secondary", "forward delay 80ms (pingpong to primary)"),
              _event("degrade", 2000, "primary", "forward delay 10ms (pingpong to primary)", lag_ms=2)]
    # Two steps of the pair {primary}: the second is a move, with no path to have moved away from.
    assert [m for _, m in handover.pingpong_moves(events)] == [
        Decision(2002 * MS, "primary", "pingpong", None, changes_primary=False)]
    assert handover.decisions(records.Records(), events, PATH_OF, PATHS) == []  # no `away` of the association's
    assert handover.pingpong_moves([_event("degrade", 1000, "primary", "forward delay 10ms")]) == []


def test_time_on_paths_at_the_workloads_edges() -> None:
    """A change at exactly the end is not taken (its path gets no entry); one at exactly the start starts the run
    on it; two changes in one instant leave the last; a change after the end is ignored even if
    the list is not over."""
    assert handover.time_on_paths("primary", [(3 * S, "secondary")], 1 * S, 3 * S) == {"primary": 2.0}
    assert handover.time_on_paths("primary", [(1 * S, "secondary")], 1 * S, 3 * S) == {"primary": 0.0, "secondary": 2.0}
    assert handover.time_on_paths("primary", [(2 * S, "secondary"), (2 * S, "third")], 1 * S, 3 * S) == pytest.approx(
        {"primary": 1.0, "secondary": 0.0, "third": 1.0})
    assert handover.time_on_paths("primary", [(4 * S, "secondary"), (5 * S, "third")], 1 * S, 3 * S) == {"primary": 2.0}
    assert handover.time_on_paths("primary", [], 3 * S, 1 * S) == {"primary": 0.0}  # no negative time


def test_delivered_share_leaves_out_messages_without_a_path() -> None:
    messages = [Message(0, 0, 10, "primary"), Message(1, 0, 10, ""), Message(2, 0, 10, "secondary"),
                Message(3, 0, None, "secondary"), Message(4, 0, 10, "secondary")]
    assert handover.delivered_share(messages) == pytest.approx({"primary": 1 / 3, "secondary": 2 / 3})
    assert list(handover.delivered_share(list(reversed(messages)))) == ["primary", "secondary"]


def test_two_associations_equal_messages_each_count_in_the_pooled_mtt() -> None:
    """Two associations' switches whose windows hold messages equal in value: each counts (by
    identity), while a message in two windows of one association counts once."""
    fast, slow = Message(0, 2500 * MS, 2510 * MS, "primary"), Message(1, 2600 * MS, 2630 * MS, "primary")
    twin = Message(0, 2500 * MS, 2510 * MS, "primary")  # the other association's, equal to `fast`
    a = handover.Switch(3000 * MS, "primary", "secondary", "policy", None, (fast, slow))
    b = handover.Switch(3100 * MS, "secondary", "primary", "policy", None, (fast, slow))
    other = handover.Switch(3000 * MS, "primary", "secondary", "policy", None, (twin,))
    assert handover.handover_metrics([a, b], 2)["handover_mtt_mean_ms"] == pytest.approx(20.0)
    assert handover.handover_metrics([a, b, other], 3)["handover_mtt_mean_ms"] == pytest.approx(50 / 3)


def test_decisions_and_switches_are_taken_in_time_order_whatever_the_order_given() -> None:
    client = records.Records(events=[(3000 * MS, "primary", "198.18.0.2")],
                             policy=[records.PolicyDecision(2000 * MS, "switch", "198.18.0.2", "198.18.1.2", "198.18.1.2", "x", ())])
    assert handover.decisions(client, [], PATH_OF, PATHS) == [Decision(2000 * MS, "secondary", "policy"),
                                                              Decision(3000 * MS, "primary", "primary")]
    given = [Decision(3000 * MS, "primary", "primary"), Decision(2000 * MS, "secondary", "policy")]
    assert handover.primary_changes("primary", given) == [(2000 * MS, "secondary"), (3000 * MS, "primary")]
    assert [(s.t_ns, s.from_path, s.to) for s in handover.switches("primary", given, _messages())] == [
        (2000 * MS, "primary", "secondary"), (3000 * MS, "secondary", "primary")]


def test_time_on_paths_adds_every_stretch_of_a_path_to_the_last_nanosecond() -> None:
    """Primary 1-2 s and 3-4 s, secondary 2-3 s and 4-6 s: each path's stretches added, in
    seconds exactly (the ns divided by 1e9)."""
    changes = [(2 * S, "secondary"), (3 * S, "primary"), (4 * S, "secondary")]
    assert handover.time_on_paths("primary", changes, 1 * S, 6 * S) == {"primary": 2.0, "secondary": 3.0}
    assert handover.time_on_paths("primary", [(1 * S + 1, "secondary")], 1 * S, 2 * S) == {"primary": 1e-9, "secondary": 1 - 1e-9}


def test_handover_figures_are_in_ms_to_the_last_digit() -> None:
    decided = [Decision(3000 * MS, "secondary", "policy")]
    (switch,) = handover.switches("primary", decided, _messages(3000, one_way_ms=7))
    m = handover.handover_metrics([switch], 1)
    assert (m["handover_delay_ms"], m["handover_delay_max_ms"], m["handover_mtt_mean_ms"], m["handover_mmtt_ms"]) == (7.0, 7.0, 7.0, 7.0)
