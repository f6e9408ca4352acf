"""`hipjudge` against a broken or hostile server (tests/cli/hostile.py): whatever comes back, every
command ends with one line on stderr ("hipjudge: error: ..."), the documented exit code, no
traceback, in bounded memory, and by its own limits (--timeout, --deadline) when the server drips,
stays silent or never ends a stream: the test asserts which limit said so, never a duration.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.hostile import GOOD, MUTATIONS, UUID, hostile_server, mutated

# About 270 runs of the CLI as a process, some waiting out its limits: minutes of wall time, so not
# in the quick tier (make test runs them).
pytestmark = pytest.mark.integration

TIMEOUT, DEADLINE = "1", "3"  # the CLI's own limits here (seconds): the hostile answers outlast both
OUTER_S = 60.0  # a safety net only: the CLI must end long before
# The CLI runs under this much address space: it needs about 100 MiB, and one that read a 1 GiB answer
# whole would fail with a MemoryError (a traceback, which the assertions refuse). A limit, not the
# child's peak RSS: Linux counts in that the test process it was forked from (hundreds of MiB once a
# worker has loaded Triton).
MAX_ADDRESS_SPACE = 512 * 1024 * 1024
UNREADABLE, UNREACHABLE, REFUSED, PENDING = 5, 4, 2, 3
SAYS_UNEXPECTED = "the server sent an unexpected response: "

KERNEL = "kernel.cpp"
COMMANDS: dict[str, list[str]] = {
    "problems": ["problems"], "problem": ["problem", "vector-add"], "pools": ["pools"],
    "submission": ["status", UUID], "submissions": ["submissions"], "leaderboard": ["leaderboard", "-p", "vector-add"],
    "create": ["submit", KERNEL, "-p", "vector-add", "--mode", "check"], "cancel": ["cancel", UUID],
    "token": ["login", "-u", "u", "--password-stdin"],
}
FOLLOWING = {"submit --wait": ["submit", KERNEL, "-p", "vector-add", "--mode", "check", "--wait"],
             "submit --watch": ["submit", KERNEL, "-p", "vector-add", "--mode", "check", "--watch"],
             "status --wait": ["status", UUID, "--wait"]}
GOOD_EXIT = {"problems": 0, "problem": 0, "pools": 0, "submission": PENDING, "submissions": 0, "leaderboard": 0,
             "create": 0, "cancel": 0, "token": 0}

TOO_SLOW = f"within {TIMEOUT} s (--timeout)"
TOO_LARGE = "too large"
# Each behaviour's exit code and what the error line must say.
CONTENT = {"broken_json": (UNREADABLE, "invalid JSON"), "html_200": (UNREADABLE, "an HTML page, not JSON"),
           "deep_array": (UNREADABLE, "nested too deeply"), "deep_object": (UNREADABLE, "nested too deeply"),
           "bad_utf8": (UNREADABLE, "not UTF-8"), "empty_200": (UNREADABLE, "got null"),
           "huge_number": (UNREADABLE, "invalid JSON"),
           **{how: (UNREADABLE, ": no '" if how == "missing_keys" else ": expected ") for how in MUTATIONS}}
TRANSPORT = {"short_body": (UNREACHABLE, "cut short"), "drip_body": (UNREACHABLE, TOO_SLOW),
             "drip_headers": (UNREACHABLE, TOO_SLOW), "silent": (UNREACHABLE, TOO_SLOW),
             "huge_advertised": (UNREADABLE, TOO_LARGE), "huge_streamed": (UNREADABLE, TOO_LARGE),
             "huge_chunked": (UNREADABLE, TOO_LARGE), "bad_chunked": (UNREACHABLE, "cut short"),
             "redirect_loop": (UNREADABLE, "redirects that lead nowhere"),
             "redirect_ping_pong": (UNREADABLE, "redirects that lead nowhere"),
             "redirect_ftp": (UNREADABLE, "not an http(s) address"),
             "http_404_html": (REFUSED, "(HTTP 404)"), "http_500_html": (REFUSED, "(HTTP 500)"),
             "http_502_html": (REFUSED, "Bad Gateway (HTTP 502)"), "http_503_html": (REFUSED, "(HTTP 503)"),
             "error_junk_json": (REFUSED, "(HTTP 400)"), "error_huge_body": (REFUSED, "(HTTP 500)"),
             "error_drip": (REFUSED, "(HTTP 503)"), "reset": (UNREACHABLE, "reset"),
             "close_no_answer": (UNREACHABLE, "closed the connection without answering"),
             "not_http": (UNREADABLE, "not an HTTP answer"), "huge_header": (UNREADABLE, "LineTooLong"),
             "many_headers": (UNREADABLE, "not an HTTP answer")}
NO_RESULT = f"no result yet: the command's deadline of {DEADLINE} s passed (--deadline)"
STREAM = {"sse_junk_data": (UNREADABLE, "invalid JSON"), "sse_wrong_shape": (UNREADABLE, "event: expected an object"),
          "sse_payload_types": (UNREADABLE, "event 1 (TEST_RESULT).payload.index: expected an integer, got a string"),
          "sse_bad_utf8": (UNREADABLE, "not UTF-8"),
          "sse_html": (UNREADABLE, "text/html where an event stream belongs"),
          "sse_json": (UNREADABLE, "application/json where an event stream belongs"),
          "sse_heartbeats_forever": (PENDING, NO_RESULT), "sse_statuses_forever": (PENDING, NO_RESULT),
          "sse_silent": (PENDING, NO_RESULT), "sse_drip": (PENDING, NO_RESULT),
          "sse_endless_line": (UNREADABLE, TOO_LARGE), "sse_huge_event": (UNREADABLE, TOO_LARGE),
          "sse_ends_at_once": (PENDING, NO_RESULT), "sse_http_500": (REFUSED, "(HTTP 500)"),
          "sse_reset": (PENDING, NO_RESULT),
          "sse_error_event": (REFUSED, "Your token was revoked. (HTTP 401); log in first")}
# The transport is the same code for every endpoint: a GET, a GET of one submission, a POST and the login.
TRANSPORT_COMMANDS = ("problems", "submission", "create", "token")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with hostile_server() as url:
        yield url


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    (tmp_path / KERNEL).write_text('extern "C" void solution() {}\n')
    monkeypatch.chdir(tmp_path)
    return {**{k: v for k, v in os.environ.items() if not k.startswith("HIPJUDGE_")},
            "HIPJUDGE_CONFIG": str(tmp_path / "config.json"), "HIPJUDGE_TOKEN": "t0k3n"}


def _bounded_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MAX_ADDRESS_SPACE, MAX_ADDRESS_SPACE))


def hipjudge(server: str, argv: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `hipjudge argv --timeout 1 --deadline 3`, in bounded memory."""
    stdout, stderr = Path("stdout.txt"), Path("stderr.txt")
    with stdout.open("wb") as out, stderr.open("wb") as err:
        child = subprocess.Popen([sys.executable, "-m", "cli.main", *argv, "--server", server, "--timeout", TIMEOUT,
                                  "--deadline", DEADLINE], stdin=subprocess.PIPE, stdout=out, stderr=err, env=env,
                                 cwd=Path.cwd(), preexec_fn=_bounded_memory)
        assert child.stdin is not None
        child.stdin.write(b"password\n")
        child.stdin.close()
        ends = time.monotonic() + OUTER_S
        while True:
            pid, status = os.waitpid(child.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > ends:
                child.kill()
                child.wait()
                pytest.fail(f"hipjudge {' '.join(argv)} still ran after {OUTER_S} s: its own limits did not end it")
            time.sleep(0.02)
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, stdout.read_text(), stderr.read_text()


def assert_one_error_line(result: tuple[int, str, str], code: int, says: str) -> None:
    exit_code, out, err = result
    assert "Traceback" not in out + err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("hipjudge: error: "), err
    assert says in lines[0], err
    if code == UNREADABLE:
        assert SAYS_UNEXPECTED in lines[0]
    assert exit_code == code, (exit_code, err)


def _cases(targets: Any, behaviours: dict[str, tuple[int, str]]) -> list[Any]:
    return [pytest.param(target, name, code, says, id=f"{target}-{name}")
            for target in targets for name, (code, says) in behaviours.items()
            if name not in MUTATIONS or mutated(GOOD[target], name) != GOOD[target]]


@pytest.mark.parametrize("target", list(COMMANDS))
def test_the_good_server_is_good(target: str, server: str, env: dict[str, str]) -> None:
    """The fixture's other answers are good: what fails below fails for its hostile answer alone."""
    exit_code, out, err = hipjudge(f"{server}/{target}/none", COMMANDS[target], env)
    assert (exit_code, err) == (GOOD_EXIT[target], "")


@pytest.mark.parametrize("following", list(FOLLOWING))
def test_the_good_stream_is_good(following: str, server: str, env: dict[str, str]) -> None:
    exit_code, out, err = hipjudge(f"{server}/events/none", FOLLOWING[following], env)
    assert (exit_code, err) == (0, "")
    assert "CHECKED: all 1 tests passed" in out


@pytest.mark.parametrize(("target", "behaviour", "code", "says"),
                         _cases(COMMANDS, CONTENT) + _cases(TRANSPORT_COMMANDS, TRANSPORT))
def test_a_hostile_answer_is_one_error_line(target: str, behaviour: str, code: int, says: str, server: str,
                                            env: dict[str, str]) -> None:
    assert_one_error_line(hipjudge(f"{server}/{target}/{behaviour}", COMMANDS[target], env), code, says)


@pytest.mark.parametrize("following", list(FOLLOWING))
@pytest.mark.parametrize(("behaviour", "code", "says"), [pytest.param(*case, id=case[0]) for case in
                                                         ((name, *said) for name, said in STREAM.items())])
def test_a_hostile_event_stream_is_one_error_line(following: str, behaviour: str, code: int, says: str,
                                                  server: str, env: dict[str, str]) -> None:
    assert_one_error_line(hipjudge(f"{server}/events/{behaviour}", FOLLOWING[following], env), code, says)
