"""The commands of `hipjudge`: each takes the parsed arguments, a client and a printer and returns
the exit code (cli.codes)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from cli import shapes
from cli.api import ApiError, Client
from cli.codes import EXIT_OK, EXIT_PENDING, EXIT_USAGE, EXIT_VERDICT, exit_code_for
from cli.config import save_config
from cli.ids import submission_id
from cli.output import Printer, best, best_light, cost, interval, ms, percent, times

LANGUAGE_BY_SUFFIX = {".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hip": "hip", ".cu": "cuda", ".py": "triton"}
LANGUAGES = ("cpp", "hip", "cuda", "triton")
# The mode a submission gets when none is asked for: the first of these its pool takes for its language.
MODE_PREFERENCE = ("benchmark", "check", "compile")


def cmd_login(args: argparse.Namespace, client: Client, out: Printer) -> int:
    username = args.username or (input("username: ") if sys.stdin.isatty() else None)
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        import getpass

        password = os.environ.get("HIPJUDGE_PASSWORD") or (getpass.getpass("password: ") if sys.stdin.isatty() else "")
    if not username or not password:
        out.error("give --username and a password (prompt, --password-stdin or HIPJUDGE_PASSWORD)")
        return EXIT_USAGE
    reply = shapes.ask(client, shapes.TOKEN, "POST", "/auth/token", {"username": username, "password": password})
    path = save_config({"server": client.server, "token": reply["token"], "username": reply["username"]})
    out.line(f"logged in to {client.server} as {reply['username']} (token saved in {path})")
    return EXIT_OK


def cmd_problems(args: argparse.Namespace, client: Client, out: Printer) -> int:
    query = {name: getattr(args, name) for name in ("tag", "type", "difficulty") if getattr(args, name, None)}
    problems = shapes.ask(client, shapes.PROBLEMS, "GET", "/problems", query=query or None)
    rows = [[p["slug"], p["title"], p["difficulty"], ", ".join(p["tags"]), ", ".join(p.get("data_types") or []),
             "-" if p.get("solved_by") is None else p["solved_by"], best(p.get("your_best")),
             best_light(p.get("best_speed_of_light"))] for p in problems]
    if out.json_mode:
        out.table(["slug", "title", "difficulty", "tags", "data types", "solved by", "your best (ms)",
                   "best speed of light"], rows)
    else:  # the tags are for --tag; `hipjudge problem SLUG` says them
        out.table(["slug", "title", "difficulty", "types", "solved", "your best", "speed of light"],
                  [row[:3] + row[4:] for row in rows], squeeze={"title", "types", "your best", "speed of light"},
                  drop=["types", "speed of light"])
    if not problems and query:
        out.line("no problem matches " + " and ".join(f"--{k} {v}" for k, v in query.items()))
    return EXIT_OK


def cmd_problem(args: argparse.Namespace, client: Client, out: Printer) -> int:
    problem = shapes.ask(client, shapes.PROBLEM, "GET", f"/problems/{args.slug}")
    out.line(f"{problem['title']} ({problem['slug']}, {problem['difficulty']})")
    signatures = problem.get("signatures") or {}
    languages = [lang for lang in LANGUAGES if lang in signatures or lang != "triton"]
    out.table(["parameter", "type", *languages, "shape", "direction"],
              [[p["name"], p["type"],
                *[("*" if lang == "triton" and p["pointer"] else "") + str(p["c_types"].get(lang, ""))
                  for lang in languages],
                "[" + ", ".join(str(d) for d in p["shape"]) + "]" if p["pointer"] else "scalar",
                "output" if p["output"] else ("input" if p["pointer"] else "")]
               for p in problem.get("parameters") or []])
    for language, signature in signatures.items():
        out.line(f"{language}: {signature}{'' if language == 'triton' else ';'}")
    rows = [[kind, *case] for kind in ("tests", "benchmarks", "ranked") for case in _case_rows(problem, kind)]
    if rows:  # a server from before the shapes were served has none
        out.table(["cases", "name", "devices", "sizes"], rows)
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
    pools = shapes.ask(client, shapes.POOLS, "GET", "/pools")
    out.table(["pool", "device", "languages", "warm", "max", "$/h", "open to you"],
              [[p["name"] + (" (simulated)" if p.get("simulated") else "") + (" *" if p.get("default") else ""),
                p["device"], _offered(p), p["warm_vms"], p["max_vms"], p["hourly_rate"],
                "yes" if p.get("open_to_you", True) else "no"] for p in pools])
    if any(p.get("default") for p in pools):
        out.line("* the default pool")
    for p in pools:
        if p.get("access"):
            out.line(f"{p['name']}: {p['access']}")
        if p.get("emulated_note"):
            out.line(f"{p['name']}: {p['emulated_note']}")
    return EXIT_OK


def default_mode(client: Client, pool: str | None, language: str) -> tuple[str, str]:
    """The mode a submission in `language` to `pool` (None: the default pool) gets when none is
    asked for: the fullest its pool takes (benchmark, else check, else compile), and why, when it
    is not benchmark."""
    pools = shapes.ask(client, shapes.POOLS, "GET", "/pools")
    chosen = next((p for p in pools if p.get("name") == pool or (pool is None and p.get("default"))), None)
    offer = next((o for o in (chosen or {}).get("offers") or [] if o.get("language") == language), None)
    if chosen is None or offer is None:
        return "benchmark", ""  # the server says what is possible
    mode = next((m for m in MODE_PREFERENCE if m in offer.get("modes", [])), "benchmark")
    how = "on the emulated device (CPU)" if mode == "check" and offer.get("emulated") else "only"
    why = "" if mode == "benchmark" else f"mode {mode}: pool {chosen['name']} runs {language} {how} that way"
    return mode, why


def cmd_submit(args: argparse.Namespace, client: Client, out: Printer) -> int:
    path = args.file
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        out.error(f"{path}: {exc}")
        return EXIT_USAGE
    language = args.language or LANGUAGE_BY_SUFFIX.get(os.path.splitext(path)[1].lower())
    if language is None:
        out.error(f"cannot tell the language of {os.path.basename(path)}; pass --language cpp|hip|cuda")
        return EXIT_USAGE
    mode = args.mode
    if mode is None:
        mode, why = default_mode(client, args.pool, language)
        if why:
            out.line(f"{why} (--mode to choose)")
    body = {"problem": args.problem, "language": language, "source": source, "mode": mode}
    if args.pool:
        body["pool"] = args.pool
    try:
        submission = shapes.ask(client, shapes.CREATED, "POST", "/submissions", body)
    except ApiError as exc:
        if exc.extra.get("status") == "REJECTED":  # refused (access, quota, cap, credit): nothing was queued
            out.error(f"REJECTED: {exc.message}")
            return EXIT_VERDICT
        raise
    where = f"pool {submission['pool']}" + (", emulated (CPU)" if submission.get("emulated") else "")
    out.line(f"submitted {submission['id']} ({args.problem}, {language}, {mode}, {where})")
    if not (args.wait or args.watch):
        return EXIT_OK
    from cli.watch import follow  # threading and the view: only when following

    return follow(client, out, submission["id"], mode, live=args.watch)


def _case_rows(problem: dict[str, Any], kind: str) -> list[list[str]]:
    """[name, devices, sizes] of the problem's cases of `kind`, as far as the server sent them well
    formed (a server from before the shapes were served sends none): the table is extra, never an error."""
    cases = problem.get("cases")
    listed = cases.get(kind) if isinstance(cases, dict) else None
    rows = []
    for case in listed if isinstance(listed, list) else []:
        if not isinstance(case, dict):
            continue
        devices, params = case.get("devices"), case.get("params")
        rows.append([str(case.get("name", "")),
                     ", ".join(str(d) for d in devices) if isinstance(devices, list) else "",
                     ", ".join(f"{k}={v}" for k, v in params.items()) if isinstance(params, dict) else ""])
    return rows


def cmd_status(args: argparse.Namespace, client: Client, out: Printer) -> int:
    detail = shapes.ask(client, shapes.SUBMISSION, "GET", f"/submissions/{submission_id(client, args.id)}")
    if (not detail["is_terminal"] or detail.get("ranked_pending") is True) and (args.wait or args.watch):
        from cli.watch import follow

        return follow(client, out, detail["id"], detail["mode"], live=args.watch)
    out.detail(detail)
    if not detail["is_terminal"]:
        return EXIT_PENDING
    return exit_code_for(detail["status"], detail["mode"])


def cmd_submissions(args: argparse.Namespace, client: Client, out: Printer) -> int:
    query = {name: getattr(args, name) for name in ("problem", "status", "pool", "mode", "language")
             if getattr(args, name)}
    query.update(page=args.page, page_size=args.limit)
    if args.all:
        query["all"] = "true"
    page = shapes.ask(client, shapes.SUBMISSIONS, "GET", "/submissions", query=query)
    rows = page["results"]
    if out.json_mode:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    out.table(["id", "submitted", "problem", "language", "mode", "pool", "status", "score_ms", "cost"],
              [[r["id"][:8], r["created_at"][:19].replace("T", " "), r["problem"], r["language"],
                r["mode"] + (" (emulated)" if r.get("emulated") else ""), r["pool"], r["status"],
                _listed_score(r), cost(r)] for r in rows])
    shown = f"{len(rows)} of {page.get('count', len(rows))}"
    out.line(f"({shown}; page {args.page}{', more: --page ' + str(args.page + 1) if page.get('next') else ''}; "
             "score: the ranked one for leaderboard submissions)")
    return EXIT_OK


def _listed_score(row: dict[str, Any]) -> str:
    """A leaderboard submission's ranked score (its public benchmark never ranks), else the score."""
    if row.get("mode") != "leaderboard":
        return ms(row.get("score_ms"))
    said = ms(row.get("ranked_score_ms")) if row.get("ranked_score_ms") is not None else "-"
    return said + (" (confirming)" if row.get("ranked_pending") else "")


def cmd_leaderboard(args: argparse.Namespace, client: Client, out: Printer) -> int:
    query: dict[str, str | int] = {"limit": args.limit}
    if args.pool:
        query["pool"] = args.pool
    board = shapes.ask(client, shapes.LEADERBOARD, "GET", f"/problems/{args.problem}/leaderboard", query=query)
    out.line(f"{board['problem']} on pool {board['pool']} (ranked results only; --json for every field)")
    out.table(["rank", "user", "score_ms", "ci95_ms", "speedup", "speed_of_light", "language", "submitted",
               "submission"],
              [[r["rank"], r["user"], ms(r["score_ms"]), interval(r["ci95_ms"]),
                times(r["speedup"]) + (" (noise)" if r.get("speedup_note") == "within noise" else ""),
                percent(r.get("speed_of_light")), r["language"],
                r["submitted_at"][:19].replace("T", " "), r["submission"] or "private"] for r in board["rows"]])
    return EXIT_OK


def cmd_rank(args: argparse.Namespace, client: Client, out: Printer) -> int:
    detail = shapes.ask(client, shapes.SUBMISSION, "GET", f"/submissions/{submission_id(client, args.id)}")
    out.standing(detail)
    state = detail["leaderboard"]["state"]
    if state == "ranked":
        return EXIT_OK
    return EXIT_PENDING if state in ("pending", "confirming") else EXIT_VERDICT


def cmd_amdgcn(args: argparse.Namespace, client: Client, out: Printer) -> int:
    sid = submission_id(client, args.id)
    listing = client.text(f"/submissions/{sid}/amdgcn")
    if args.output == "-":
        sys.stdout.write(listing)
        return EXIT_OK
    path = args.output or f"{sid}.gfx942.s"
    with open(path, "w", encoding="utf-8") as file:
        file.write(listing)
    out.line(f"wrote {path} ({len(listing.splitlines())} lines)")
    return EXIT_OK


def cmd_cancel(args: argparse.Namespace, client: Client, out: Printer) -> int:
    detail = shapes.ask(client, shapes.CANCELLED, "POST", f"/submissions/{submission_id(client, args.id)}/cancel")
    out.line(f"{detail['id']}: {detail['status']} {detail['status_reason']}".rstrip())
    return EXIT_OK
