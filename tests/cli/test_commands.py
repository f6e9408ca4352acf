"""The CLI's commands against the real API in this process (tests/cli/inprocess.py): short ids,
listing submissions, status with its cost and waiting time, the default mode of a pool, and the
watch view (redrawn in place on a terminal, plain lines when piped)."""

from __future__ import annotations

import argparse
import io
import re
import time
import uuid
from typing import Any

import pytest
from django.utils import timezone

from cli.output import Printer
from cli.watch import CLEAR_LINE, View
from submissions.models import Submission
from tests.cli.inprocess import run_cli as run
from tests.conftest import finish
from tests.support.ranked import submit

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")



def test_every_command_takes_the_short_id_the_pages_show(owner: Any, other_user: Any, api_as: Any,
                                                         monkeypatch: Any, capsys: Any) -> None:
    mine = submit(owner, mode="check")
    short = str(mine.pk)[:8]
    api = api_as(owner)
    assert run(monkeypatch, api, "status", short) == 3  # queued: not finished
    assert f"{mine.pk}  vector-add  cpp  check  pool local" in capsys.readouterr().out
    assert run(monkeypatch, api, "rank", short.upper()) == 1  # not a leaderboard submission
    assert run(monkeypatch, api, "cancel", short) == 0
    assert Submission.objects.get(pk=mine.pk).status == "CANCELLED"
    capsys.readouterr()

    assert run(monkeypatch, api_as(other_user), "status", short) == 2  # another user's: not found
    assert f"No submission of yours starts with '{short}'" in capsys.readouterr().err
    assert run(monkeypatch, api, "status", "xyz") == 2
    assert "'xyz' is not a submission id" in capsys.readouterr().err
    copy = Submission.objects.get(pk=mine.pk)
    for last in "12":  # two of the owner's submissions that start alike
        copy.pk = uuid.UUID(f"abcdef0{last}-0000-4000-8000-000000000000")
        copy.save(force_insert=True)
    assert run(monkeypatch, api, "status", "abcdef0") == 2
    assert "'abcdef0' starts 2 submissions (abcdef01-0000-4000-8000-000000000000, " in capsys.readouterr().err
    assert run(monkeypatch, api, "status", "abcdef01-00") == 1  # the cancelled copy
    assert api.get("/api/v1/submissions", {"id": "zz-top"}).status_code == 400


def test_submissions_lists_yours_with_filters_scores_and_costs(owner: Any, other_user: Any, api_as: Any,
                                                               monkeypatch: Any, capsys: Any) -> None:
    accepted = submit(owner, mode="check")
    finish(accepted.pk, "CHECKED", "all 4 tests passed")
    wrong = submit(owner, mode="check")
    finish(wrong.pk, "WRONG_ANSWER", "test 2 failed")
    submit(other_user, mode="check")
    assert run(monkeypatch, api_as(owner), "submissions") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["id", "submitted", "problem", "language", "mode", "pool", "status", "score_ms", "cost"]
    assert [line.split()[0] for line in lines[1:3]] == [str(wrong.pk)[:8], str(accepted.pk)[:8]]
    assert len(lines) == 4
    assert "$0.0000" in lines[1]
    assert lines[3].startswith("(2 of 2; page 1")
    assert run(monkeypatch, api_as(owner), "submissions", "--status", "wrong_answer", "-p", "vector-add") == 0
    rows = capsys.readouterr().out.splitlines()[1:-1]
    assert [r.split()[0] for r in rows] == [str(wrong.pk)[:8]]


def test_status_shows_the_cost_and_how_long_a_vm_has_been_starting(owner: Any, api_as: Any, monkeypatch: Any,
                                                                   capsys: Any) -> None:
    from django.utils import timezone

    starting = submit(owner, mode="check")
    before = timezone.now()
    Submission.objects.filter(pk=starting.pk).update(status="PROVISIONING",
                                                     dispatched_at=before - timezone.timedelta(seconds=12))
    assert run(monkeypatch, api_as(owner), "status", str(starting.pk)) == 3
    waited = (timezone.now() - before).total_seconds()  # what a busy machine added to the 12 s
    out = capsys.readouterr().out
    shown = re.search(r"status: PROVISIONING \(starting a VM for (\d+) s\)", out)
    assert shown is not None and 12 <= int(shown[1]) <= 12 + waited + 1
    assert "cost: $0.0000 so far" in out


def test_a_hip_kernel_defaults_to_the_mode_the_pool_can_run(owner: Any, api_as: Any, monkeypatch: Any,
                                                            capsys: Any, tmp_path: Any) -> None:
    kernel = tmp_path / "kernel.hip"
    kernel.write_text('#include <hip/hip_runtime.h>\nextern "C" void solution() {}\n')
    assert run(monkeypatch, api_as(owner), "submit", str(kernel), "-p", "vector-add") == 0
    out = capsys.readouterr().out
    assert "mode check: pool local runs hip on the emulated device (CPU) that way (--mode to choose)" in out
    assert Submission.objects.get().mode == "check"
    cpp = tmp_path / "kernel.cpp"
    cpp.write_text("int x;")
    assert run(monkeypatch, api_as(owner), "submit", str(cpp), "-p", "vector-add") == 0
    assert Submission.objects.order_by("-created_at").first().mode == "benchmark"


EVENTS = [{"seq": 1, "type": "STATUS", "payload": {"status": "PROVISIONING"}},
          {"seq": 2, "type": "VM", "payload": {"vm_start": "COLD_START", "pool": "local"}},
          {"seq": 3, "type": "STATUS", "payload": {"status": "CHECKING"}},
          {"seq": 4, "type": "TEST_RESULT", "payload": {"case": "n=1", "index": 0, "total": 4, "passed": True}},
          {"seq": 5, "type": "TEST_RESULT", "payload": {"case": "n=1000", "index": 1, "total": 4, "passed": False,
                                                         "message": "c[17]: expected 1.5, got 0"}}]


def test_watch_redraws_its_view_in_place_on_a_terminal(capsys: Any) -> None:
    screen = io.StringIO()
    view = View(Printer(), live=True, tty=True, stream=screen)
    view.event(EVENTS[0])
    view.since -= 7  # seven seconds into the cold start
    view.tick()
    assert "PROVISIONING    7.0 s" in screen.getvalue().splitlines()[-1]
    for event in EVENTS[1:]:
        view.event(event)
    block = view.lines()
    assert block[0].startswith("CHECKING ")
    assert "(cold start on pool local)" in block[0]
    assert block[1] == "  tests    ✓✗··  test 2 of 4 failed, 1 passed"
    assert "\x1b[1A" in screen.getvalue()
    assert CLEAR_LINE in screen.getvalue()
    assert capsys.readouterr().out == ""  # nothing else printed meanwhile


def test_watch_stays_plain_when_piped_and_says_it_still_waits(capsys: Any) -> None:
    screen = io.StringIO()
    view = View(Printer(), live=True, tty=False, stream=screen)
    view.event(EVENTS[0])
    view.since -= 12
    view.last_plain_tick = time.monotonic() - 11  # the last line was 11 s ago
    view.tick()
    for event in EVENTS[1:]:
        view.event(event)
    out = capsys.readouterr().out
    assert screen.getvalue() == ""
    assert "\x1b" not in out
    assert "  … still starting a VM: 12 s" in out
    assert "✗ test 2 of 4 FAILED: n=1000: c[17]: expected 1.5, got 0" in out


def test_wait_on_a_terminal_keeps_one_timer_line_until_the_next_event(capsys: Any) -> None:
    screen = io.StringIO()
    view = View(Printer(), live=False, tty=True, stream=screen)
    view.event(EVENTS[0])
    view.since -= 3
    view.tick()
    assert screen.getvalue().endswith("  … starting a VM: 3 s")
    view.event(EVENTS[1])
    assert screen.getvalue().endswith(f"\r{CLEAR_LINE}")  # wiped before the event's line
    assert "VM" in capsys.readouterr().out


def test_the_parser_knows_the_new_commands() -> None:
    from cli.main import build_parser

    args = build_parser().parse_args(["submissions", "--status", "accepted,wrong_answer", "--limit", "5"])
    assert isinstance(args, argparse.Namespace)
    assert args.status == "ACCEPTED,WRONG_ANSWER"
    assert args.limit == 5
    assert build_parser().parse_args(["submit", "k.hip", "-p", "x"]).mode is None


def test_the_global_options_work_before_and_after_the_command() -> None:
    from cli.main import build_parser

    parse = build_parser().parse_args
    assert parse(["pools"]).json is False
    assert parse(["--json", "pools"]).json is True
    assert parse(["pools", "--json"]).json is True
    after = parse(["--server", "http://a", "--timeout", "5", "status", "abcd", "--server", "http://b",
                   "--deadline", "9"])
    assert (after.server, after.timeout, after.deadline) == ("http://b", 5.0, 9.0)
    assert parse(["--token", "t", "leaderboard", "-p", "x"]).token == "t"  # not given after: the one before stays


def test_a_py_file_is_a_triton_kernel_and_its_amdgcn_listing_is_saved(owner: Any, api_as: Any, monkeypatch: Any,
                                                                    capsys: Any, tmp_path: Any) -> None:
    kernel = tmp_path / "kernel.py"
    kernel.write_text("def solution(a, b, c, n):\n    pass\n")
    assert run(monkeypatch, api_as(owner), "submit", str(kernel), "-p", "vector-add") == 0
    submitted = Submission.objects.get()
    assert (submitted.language, submitted.mode) == ("triton", "check")  # the CPU pool checks it in the interpreter
    submitted.events.create(seq=99, type="COMPILE_RESULT", attempt=submitted.attempt, at=timezone.now(), payload={
        "ok": True, "output": "", "report": {"targets": [], "amdgcn_listing": ["gemm:\n", "\tv_mfma\n"]}})
    out_file = tmp_path / "k.s"
    assert run(monkeypatch, api_as(owner), "amdgcn", str(submitted.pk)[:8], "-o", str(out_file)) == 0
    assert out_file.read_text() == "gemm:\n\tv_mfma\n"
    assert "wrote" in capsys.readouterr().out
