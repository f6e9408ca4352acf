"""hipjudge: log in, list problems, submit a kernel and watch it being judged, list your
submissions, read leaderboards. Exit codes: cli/codes.py (also in --help)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from cli.api import DEFAULT_DEADLINE, DEFAULT_TIMEOUT, ApiError, BadResponse, Client, ConnectionFailed
from cli.codes import (
    EXIT_BAD_RESPONSE,
    EXIT_OK,
    EXIT_PENDING,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    EXIT_VERDICT,
    SUCCESS,
    exit_code_for,
)
from cli.commands import (
    LANGUAGE_BY_SUFFIX,
    LANGUAGES,
    _offered,
    cmd_amdgcn,
    cmd_cancel,
    cmd_leaderboard,
    cmd_login,
    cmd_pools,
    cmd_problem,
    cmd_problems,
    cmd_rank,
    cmd_status,
    cmd_submissions,
    cmd_submit,
)
from cli.config import config_path, load_config, save_config
from cli.output import Printer

__all__ = ["EXIT_BAD_RESPONSE", "EXIT_OK", "EXIT_PENDING", "EXIT_UNREACHABLE", "EXIT_USAGE", "EXIT_VERDICT",
           "LANGUAGE_BY_SUFFIX", "SUCCESS", "_offered", "cmd_pools", "cmd_problems", "cmd_submit", "config_path",
           "exit_code_for", "main", "save_config"]
MODES = ("benchmark", "check", "compile", "leaderboard")
STATUSES = ("IN_QUEUE", "PROVISIONING", "COMPILING", "CHECKING", "BENCHMARKING", "RANKING", "ACCEPTED", "CHECKED",
            "COMPILED", "WRONG_ANSWER", "COMPILE_ERROR", "RUNTIME_ERROR", "TIME_LIMIT_EXCEEDED", "CANCELLED",
            "REJECTED", "ERROR")
DEFAULT_SERVER = "http://127.0.0.1:8000"
ID_HELP = "a submission id, or its start (the 8 characters the pages show)"


def _follow_options(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--wait", "-w", action="store_true", help=f"{what}: print progress as lines until the result")
    parser.add_argument("--watch", action="store_true",
                        help=f"{what}: on a terminal, one view of its cases redrawn in place (piped: as --wait)")


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < 10**7:
        raise argparse.ArgumentTypeError(f"a number of seconds above 0, not {text!r}")
    return value


def _global_options(parser: argparse.ArgumentParser, *, defaults: bool) -> None:
    """The options every command takes, before or after the command's name: given after it, they
    win; not given there, they leave the ones before it alone (SUPPRESS: no default)."""
    default: dict[str, Any] = {} if defaults else {"default": argparse.SUPPRESS}
    parser.add_argument("--server", **default, help=f"API server (env HIPJUDGE_SERVER; default {DEFAULT_SERVER})")
    parser.add_argument("--token", **default, help="API token (env HIPJUDGE_TOKEN; default: the one `login` saved)")
    parser.add_argument("--json", action="store_true", **default, help="print raw JSON")
    parser.add_argument("--timeout", type=seconds, metavar="S", **default,
                        help=f"the longest one answer may take, and an event stream stay silent (env "
                             f"HIPJUDGE_TIMEOUT; default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--deadline", type=seconds, metavar="S", **default,
                        help=f"the longest the whole command may take: --wait and --watch stop there, exit 3 (env "
                             f"HIPJUDGE_DEADLINE; default {DEFAULT_DEADLINE:g}, a submission's longest life)")


class _Commands:
    """Subparsers that all take the global options."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.inner = parser.add_subparsers(dest="command", required=True)

    def add_parser(self, name: str, **kwargs: object) -> argparse.ArgumentParser:
        sub: argparse.ArgumentParser = self.inner.add_parser(name, **kwargs)  # type: ignore[arg-type]
        _global_options(sub, defaults=False)
        return sub


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hipjudge", description="HIPJudge command-line client",
                                     epilog="exit codes: 0 success, 1 failed verdict, 2 usage/API error, "
                                            "3 not finished yet, 4 server unreachable or too slow, "
                                            "5 an answer the CLI cannot read")
    _global_options(parser, defaults=True)
    commands = _Commands(parser)

    login = commands.add_parser("login", help="get an API token and save it")
    login.add_argument("--username", "-u")
    login.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    login.set_defaults(func=cmd_login)

    problems = commands.add_parser("problems", help="list problems (filters combine), how many users solved each "
                                                    "and your best on each")
    problems.add_argument("--tag", "-t", help="e.g. gemm, matrix-cores, memory-bound")
    problems.add_argument("--type", help="a data type of its buffers, e.g. bfloat16, fp8_e4m3fnuz, int8, float")
    problems.add_argument("--difficulty", "-d", choices=("easy", "medium", "hard"))
    problems.set_defaults(func=cmd_problems)
    problem = commands.add_parser("problem", help="a problem's parameters and their types in each language")
    problem.add_argument("slug")
    problem.set_defaults(func=cmd_problem)
    commands.add_parser("pools", help="list pools").set_defaults(func=cmd_pools)

    submit = commands.add_parser("submit", help="submit a source file")
    submit.add_argument("file")
    submit.add_argument("--problem", "-p", required=True)
    submit.add_argument("--language", "-l", choices=LANGUAGES, help="default: from the suffix (.py: triton)")
    submit.add_argument("--mode", "-m", choices=MODES,
                        help="default: the fullest mode the pool runs the language in (benchmark, else check, else "
                             "compile); leaderboard: also the ranked pass on secret inputs, the only result that ranks")
    submit.add_argument("--pool", help="default: the server's default pool")
    _follow_options(submit, "follow it")
    submit.set_defaults(func=cmd_submit)

    status = commands.add_parser("status", help="show a submission (its cost included)")
    status.add_argument("id", help=ID_HELP)
    _follow_options(status, "follow it until it finishes")
    status.set_defaults(func=cmd_status)

    listing = commands.add_parser("submissions", help="list your submissions, newest first")
    listing.add_argument("--problem", "-p")
    listing.add_argument("--status", "-s", type=str.upper, metavar="STATUS[,STATUS]",
                         help=f"one or several, comma-separated: {', '.join(STATUSES)}")
    listing.add_argument("--pool")
    listing.add_argument("--mode", "-m", choices=MODES)
    listing.add_argument("--language", "-l", choices=LANGUAGES)
    listing.add_argument("--limit", type=int, default=20, choices=range(1, 101), metavar="1..100")
    listing.add_argument("--page", type=int, default=1)
    listing.add_argument("--all", action="store_true", help="staff: everyone's")
    listing.set_defaults(func=cmd_submissions)

    board = commands.add_parser("leaderboard", help="a problem's leaderboard (ranked results)")
    board.add_argument("--problem", "-p", required=True)
    board.add_argument("--pool", help="default: the server's default pool")
    board.add_argument("--limit", type=int, default=20, choices=range(1, 101), metavar="1..100")
    board.set_defaults(func=cmd_leaderboard)

    rank = commands.add_parser("rank", help="where a submission stands on its leaderboard")
    rank.add_argument("id", help=ID_HELP)
    rank.set_defaults(func=cmd_rank)

    amdgcn = commands.add_parser("amdgcn", help="save the AMDGCN listing (gfx942) of a submission's compiled "
                                                 "kernels (a triton submission's compile reports it)")
    amdgcn.add_argument("id", help=ID_HELP)
    amdgcn.add_argument("--output", "-o", help="the file to write (default: <id>.gfx942.s; - for stdout)")
    amdgcn.set_defaults(func=cmd_amdgcn)

    cancel = commands.add_parser("cancel", help="cancel a submission")
    cancel.add_argument("id", help=ID_HELP)
    cancel.set_defaults(func=cmd_cancel)
    return parser


def _limit(given: float | None, variable: str, default: float) -> float:
    """A time limit: the option, else the environment variable, else the default."""
    if given is not None:
        return given
    text = os.environ.get(variable)
    if not text:
        return default
    try:
        return seconds(text)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(f"{variable}: {exc}") from None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    config = load_config()
    server = args.server or os.environ.get("HIPJUDGE_SERVER") or config.get("server") or DEFAULT_SERVER
    token = args.token or os.environ.get("HIPJUDGE_TOKEN") or (
        config.get("token") if config.get("server", server) == server else None)
    out = Printer(json_mode=args.json)
    try:
        client = Client(server, None if args.command == "login" else token,
                        timeout=_limit(args.timeout, "HIPJUDGE_TIMEOUT", DEFAULT_TIMEOUT),
                        deadline=_limit(args.deadline, "HIPJUDGE_DEADLINE", DEFAULT_DEADLINE))
    except ValueError as exc:
        out.error(str(exc))
        return EXIT_USAGE
    try:
        return int(args.func(args, client, out))
    except ApiError as exc:
        login = "; log in first: hipjudge login" if exc.status == 401 else ""
        out.error(f"{exc.message} (HTTP {exc.status}){login}")
        return EXIT_USAGE
    except ConnectionFailed as exc:
        out.error(str(exc))
        return EXIT_UNREACHABLE
    except BadResponse as exc:
        out.error(str(exc))
        return EXIT_BAD_RESPONSE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
