"""hipjudge: log in, list problems, submit a kernel and watch it being judged.

Exit codes: 0 the submission did what its mode asked (ACCEPTED / CHECKED / COMPILED), or the
command succeeded; 1 any other final status (WRONG_ANSWER, COMPILE_ERROR, REJECTED, ERROR, ...);
2 usage or API errors; 3 `status` of a submission that has not finished; 4 the server is unreachable.
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
from cli.output import Printer

EXIT_OK, EXIT_VERDICT, EXIT_USAGE, EXIT_PENDING, EXIT_UNREACHABLE = 0, 1, 2, 3, 4
SUCCESS = {"benchmark": "ACCEPTED", "check": "CHECKED", "compile": "COMPILED"}
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


def cmd_pools(args: argparse.Namespace, client: Client, out: Printer) -> int:
    pools = client.call("GET", "/pools")
    out.table(["pool", "device", "languages", "warm", "max", "$/h"],
              [[p["name"], p["device"], ",".join(p["languages"]), p["warm_vms"], p["max_vms"], p["hourly_rate"]]
               for p in pools])
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
        if exc.status == 429 and exc.extra.get("submission"):
            out.error(f"REJECTED: {exc.message}")
            return EXIT_VERDICT
        raise
    out.line(f"submitted {submission['id']} ({args.problem}, {language}, {args.mode}, pool {submission['pool']})")
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
    commands.add_parser("pools", help="list pools").set_defaults(func=cmd_pools)

    submit = commands.add_parser("submit", help="submit a source file")
    submit.add_argument("file")
    submit.add_argument("--problem", "-p", required=True)
    submit.add_argument("--language", "-l", choices=("cpp", "hip", "cuda"), help="default: from the suffix")
    submit.add_argument("--mode", "-m", choices=("benchmark", "check", "compile"), default="benchmark")
    submit.add_argument("--pool", help="default: the server's default pool")
    submit.add_argument("--wait", "-w", action="store_true", help="stream progress until the result")
    submit.set_defaults(func=cmd_submit)

    status = commands.add_parser("status", help="show a submission")
    status.add_argument("id")
    status.add_argument("--wait", "-w", action="store_true", help="follow it until it finishes")
    status.set_defaults(func=cmd_status)

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
