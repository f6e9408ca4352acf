"""Every event the agent makes passes through json_safe: what a job says is bounded there."""

from __future__ import annotations

import json

from agent.protocol import EVENT_DEPTH, EVENT_LIST_ITEMS, EVENT_REASON_CHARS, EVENT_TEXT_CHARS, cut_text, json_safe


def test_a_reason_is_cut_to_a_sentence_and_says_how_much_was_cut():
    reason = json_safe({"reason": "case 'n=1': " + "x" * 5_000_000})["reason"]
    assert len(reason) <= EVENT_REASON_CHARS
    assert reason.startswith("case 'n=1': xxx")
    assert reason.endswith("more characters cut]")


def test_output_keeps_its_tail_where_a_crash_is_explained():
    output = json_safe({"summary": {"output": "x" * 1_000_000 + "\nSegmentation fault"}})["summary"]["output"]
    assert len(output) <= EVENT_TEXT_CHARS
    assert output.endswith("Segmentation fault")
    assert output.startswith("[… ")
    assert "earlier characters cut]" in output


def test_cutting_twice_changes_nothing():
    once = cut_text("y" * 100_000, "reason")
    assert cut_text(once, "reason") == once
    assert json_safe(json_safe({"output": "z" * 200_000})) == json_safe({"output": "z" * 200_000})


def test_short_text_numbers_and_structure_pass_unchanged():
    payload = {"status": "ACCEPTED", "reason": "all 4 tests passed", "score_ms": 1.5, "runs": 10,
               "cases": [{"case": "n=1", "passed": True, "message": None}]}
    assert json_safe(payload) == payload


def test_lists_and_nesting_are_bounded():
    deep: object = "leaf"
    for _ in range(10_000):
        deep = [deep]
    safe = json_safe({"times_ms": list(range(10 * EVENT_LIST_ITEMS)), "deep": deep})
    assert len(safe["times_ms"]) == EVENT_LIST_ITEMS
    assert "nested too deeply" in json.dumps(safe["deep"])
    assert json.dumps(safe).count("[") <= EVENT_DEPTH + 2
