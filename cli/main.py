"""hipjudge: log in, list problems, submit a kernel and watch it being judged, read leaderboards.

Exit codes: 0 the submission did what its mode asked (ACCEPTED / CHECKED / COMPILED), or the
command succeeded; 1 any other final status (WRONG_ANSWER, COMPILE_ERROR, REJECTED, ERROR, ...), or
`rank` of a submission that is not on the leaderboard; 2 usage or API errors; 3 `status` / `rank` of
a submission that has not finished; 4 the server is unreachable.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from cli.api import ApiError, Client, ConnectionFailed
from cli.output import Printer, interval, ms, times

EXIT_OK, EXIT_VERDICT, EXIT_USAGE, EXIT_PENDING, EXIT_UNREACHABLE = 0, 1, 2, 3, 4
SUCCESS = {"benchmark": "ACCEPTED", "check": "CHECKED", "compile": "COMPILED", "leaderboard": "ACCEPTED"}
MODES = ("benchmark", "check", "compile", "leaderboard")
LANGUAGE_BY_SUFFIX = {".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hip": "hip", ".cu": "cuda"}
DEFAULT_SERVER = "http://127.0.0.1:8000"
WATCH_RECONNECTS = 20


def config_path() -> Path:
    explicit = os.environ.get("HIPJUDGE_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "hipjudge" / "config.json"


def load_config() -> dict[str, Any]:
    try:
        data = json.loads(config_path().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_config(data: dict[str, Any]) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # the token is a password
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=2)
    return path


def exit_code_for(status: str, mode: str) -> int:
    return EXIT_OK if status == SUCCESS.get(mode, "ACCEPTED") else EXIT_VERDICT


# ---- commands ----------------------------------------------------------------------------------
def cmd_login(args: argparse.Namespace, client: Client, out: Printer) -> int:
    username = args.username or (input("username: ") if sys.stdin.isatty() else None)
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = os.environ.get("HIPJUDGE_PASSWORD") or (getpass.getpass("password: ") if sys.stdin.isatty() else "")
    if not username or not password:
        out.error("give --username and a password (prompt, --password-stdin or HIPJUDGE_PASSWORD)")
        return EXIT_USAGE
    reply = client.call("POST", "/auth/token", {"username": username, "password": password})
    path = save_config({"server": client.server, "token": reply["token"], "username": reply["username"]})
    out.line(f"logged in to {client.server} as {reply['username']} (token saved in {path})")
    return EXIT_OK


def cmd_problems(args: argparse.Namespace, client: Client, out: Printer) -> int:
    problems = client.call("GET", "/problems")
    out.table(["slug", "title", "difficulty", "tags"],
              [[p["slug"], p["title"], p["difficulty"], ", ".join(p["tags"])] for p in problems])
    return EXIT_OK


def cmd_problem(args: argparse.Namespace, client: Client, out: Printer) -> int:
    problem = client.call("GET", f"/problems/{args.slug}")
    out.line(f"{problem['title']} ({problem['slug']}, {problem['difficulty']})")
    out.table(["parameter", "type", "cpp", "hip", "cuda", "shape", "direction"],
              [[p["name"], p["type"], p["c_types"]["cpp"], p["c_types"]["hip"], p["c_types"]["cuda"],
                "[" + ", ".join(p["shape"]) + "]" if p["pointer"] else "scalar",
                "output" if p["output"] else ("input" if p["pointer"] else "")]
               for p in problem.get("parameters", [])])
    for language, signature in problem.get("signatures", {}).items():
        out.line(f"{language}: {signature};")
    return EXIT_OK


def _offered(pool: dict[str, Any]) -> str:
    """What the pool takes: a language alone runs in every mode; others name their modes."""
    offers = pool.get("offers")
    if not isinstance(offers, list):  # a server from before offers: languages only
        return ",".join(pool["languages"])
    said = []
    for offer in offers:
        modes = ["emulated check" if m == "check" and offer.get("emulated") else m for m in offer["modes"]]
        said.append(offer["language"] if "benchmark" in modes else f"{offer['language']}: {', '.join(modes)}")
    return "; ".join(said)


def cmd_pools(args: argparse.Namespace, client: Client, out: Printer) -> int:
    pools = client.call("GET", "/pools")
    out.table(["pool", "device", "languages", "warm", "max", "$/h", "open to you"],
              [[p["name"] + (" (simulated)" if p.get("simulated") else ""), p["device"], _offered(p), p["warm_vms"],
                p["max_vms"], p["hourly_rate"], "yes" if p.get("open_to_you", True) else "no"] for p in pools])
    for p in pools:
        if p.get("access"):
            out.line(f"{p['name']}: {p['access']}")
        if p.get("emulated_note"):
            out.line(f"{p['name']}: {p['emulated_note']}")
    return EXIT_OK


def cmd_submit(args: argparse.Namespace, client: Client, out: Printer) -> int:
    path = Path(args.file)
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        out.error(f"{path}: {exc}")
        return EXIT_USAGE
    language = args.language or LANGUAGE_BY_SUFFIX.get(path.suffix.lower())
    if language is None:
        out.error(f"cannot tell the language of {path.name}; pass --language cpp|hip|cuda")
        return EXIT_USAGE
    body = {"problem": args.problem, "language": language, "source": source, "mode": args.mode}
    if args.pool:
        body["pool"] = args.pool
    try:
        submission = client.call("POST", "/submissions", body)
    except ApiError as exc:
        if exc.extra.get("status") == "REJECTED":  # refused (access, quota, cap, credit): nothing was queued
            out.error(f"REJECTED: {exc.message}")
            return EXIT_VERDICT
        raise
    where = f"pool {submission['pool']}" + (", emulated (CPU)" if submission.get("emulated") else "")
    out.line(f"submitted {submission['id']} ({args.problem}, {language}, {args.mode}, {where})")
    if not args.wait:
        return EXIT_OK
    return watch(client, out, submission["id"], args.mode)


def watch(client: Client, out: Printer, submission_id: str, mode: str) -> int:
    after, reconnects = 0, 0
    while True:
        try:
            for event in client.events(submission_id, after=after):
                after = event["seq"]
                out.event(event)
                if event["type"] == "RESULT":
                    # A rejudge follows an earlier RESULT in the same stream: only the last one ends it.
                    detail = client.call("GET", f"/submissions/{submission_id}")
                    if detail["is_terminal"] and detail["last_seq"] <= after:
                        return exit_code_for(event["payload"].get("status", ""), mode)
        except ConnectionFailed as exc:
            reconnects += 1
            if reconnects > WATCH_RECONNECTS:
                raise
            out.line(f"  ({exc}; reconnecting)")
            time.sleep(min(2.0 * reconnects, 10.0))
            continue
        # The stream ended without a RESULT (server restart): ask for the state, then resume.
        detail = client.call("GET", f"/submissions/{submission_id}")
        if detail["is_terminal"]:
            out.result(detail)
            return exit_code_for(detail["status"], detail["mode"])
        reconnects += 1
        if reconnects > WATCH_RECONNECTS:
            out.error("the event stream keeps ending early; try `hipjudge status --wait` later")
            return EXIT_PENDING
        time.sleep(1.0)


def cmd_status(args: argparse.Namespace, client: Client, out: Printer) -> int:
    detail = client.call("GET", f"/submissions/{args.id}")
    if not detail["is_terminal"] and args.wait:
        return watch(client, out, detail["id"], detail["mode"])
    out.detail(detail)
    if not detail["is_terminal"]:
        return EXIT_PENDING
    return exit_code_for(detail["status"], detail["mode"])


def cmd_leaderboard(args: argparse.Namespace, client: Client, out: Printer) -> int:
    query: dict[str, str | int] = {"limit": args.limit}
    if args.pool:
        query["pool"] = args.pool
    board = client.call("GET", f"/problems/{args.problem}/leaderboard", query=query)
    out.line(f"{board['problem']} on pool {board['pool']} (ranked results only; --json for every field)")
    out.table(["rank", "user", "score_ms", "ci95_ms", "speedup", "language", "submitted", "submission"],
              [[r["rank"], r["user"], ms(r["score_ms"]), interval(r["ci95_ms"]), times(r["speedup"]), r["language"],
                r["submitted_at"][:19].replace("T", " "), r["submission"] or "private"] for r in board["rows"]])
    return EXIT_OK


def cmd_rank(args: argparse.Namespace, client: Client, out: Printer) -> int:
    detail = client.call("GET", f"/submissions/{args.id}")
    out.standing(detail)
    state = detail["leaderboard"]["state"]
    if state == "ranked":
        return EXIT_OK
    return EXIT_PENDING if state == "pending" else EXIT_VERDICT


def cmd_cancel(args: argparse.Namespace, client: Client, out: Printer) -> int:
    detail = client.call("POST", f"/submissions/{args.id}/cancel")
    out.line(f"{detail['id']}: {detail['status']} {detail['status_reason']}".rstrip())
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hipjudge", description="HIPJudge command-line client",
                                     epilog="exit codes: 0 success, 1 failed verdict, 2 usage/API error, "
                                            "3 not finished yet, 4 server unreachable")
    parser.add_argument("--server", help=f"API server (env HIPJUDGE_SERVER; default {DEFAULT_SERVER})")
    parser.add_argument("--token", help="API token (env HIPJUDGE_TOKEN; default: the one `login` saved)")
    parser.add_argument("--json", action="store_true", help="print raw JSON")
    commands = parser.add_subparsers(dest="command", required=True)

    login = commands.add_parser("login", help="get an API token and save it")
    login.add_argument("--username", "-u")
    login.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    login.set_defaults(func=cmd_login)

    commands.add_parser("problems", help="list problems").set_defaults(func=cmd_problems)
    problem = commands.add_parser("problem", help="a problem's parameters and their types in each language")
    problem.add_argument("slug")
    problem.set_defaults(func=cmd_problem)
    commands.add_parser("pools", help="list pools").set_defaults(func=cmd_pools)

    submit = commands.add_parser("submit", help="submit a source file")
    submit.add_argument("file")
    submit.add_argument("--problem", "-p", required=True)
    submit.add_argument("--language", "-l", choices=("cpp", "hip", "cuda"), help="default: from the suffix")
    submit.add_argument("--mode", "-m", choices=MODES, default="benchmark",
                        help="leaderboard: also the ranked pass on secret inputs; only its result ranks")
    submit.add_argument("--pool", help="default: the server's default pool")
    submit.add_argument("--wait", "-w", action="store_true", help="stream progress until the result")
    submit.set_defaults(func=cmd_submit)

    status = commands.add_parser("status", help="show a submission")
    status.add_argument("id")
    status.add_argument("--wait", "-w", action="store_true", help="follow it until it finishes")
    status.set_defaults(func=cmd_status)

    board = commands.add_parser("leaderboard", help="a problem's leaderboard (ranked results)")
    board.add_argument("--problem", "-p", required=True)
    board.add_argument("--pool", help="default: the server's default pool")
    board.add_argument("--limit", type=int, default=20, choices=range(1, 101), metavar="1..100")
    board.set_defaults(func=cmd_leaderboard)

    rank = commands.add_parser("rank", help="where a submission stands on its leaderboard")
    rank.add_argument("id")
    rank.set_defaults(func=cmd_rank)

    cancel = commands.add_parser("cancel", help="cancel a submission")
    cancel.add_argument("id")
    cancel.set_defaults(func=cmd_cancel)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    config = load_config()
    server = args.server or os.environ.get("HIPJUDGE_SERVER") or config.get("server") or DEFAULT_SERVER
    token = args.token or os.environ.get("HIPJUDGE_TOKEN") or (
        config.get("token") if config.get("server", server) == server else None)
    out = Printer(json_mode=args.json)
    try:
        client = Client(server, None if args.command == "login" else token)
    except ValueError as exc:
        out.error(str(exc))
        return EXIT_USAGE
    try:
        return int(args.func(args, client, out))
    except ApiError as exc:
        out.error(f"{exc.message} (HTTP {exc.status})")
        if exc.status == 401:
            out.error("log in first: hipjudge login")
        return EXIT_USAGE
    except ConnectionFailed as exc:
        out.error(str(exc))
        return EXIT_UNREACHABLE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
