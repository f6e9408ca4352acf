"""`python -m agent serve | run | jobs | health`: the agent's command line.

`serve` is what the platform starts on a VM (or on 127.0.0.1 for the local pool); it prints one
line `agent listening on http://HOST:PORT` once it accepts requests, so the parent can wait for it.
`run` judges one file from the terminal through the same job machinery, with a readable report.
`jobs` judges the job requests read from stdin and prints their events as JSON lines (agent.job_lines):
how another process on this machine (`manage.py problem check`) runs the judge.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from agent.judging.jobs import JobManager
from agent.judging.report import format_report, progress_line
from agent.protocol import SUCCESS_STATUSES

DEVICES = ("auto", "host", "hip", "cuda")
MODES = ("check", "benchmark", "compile", "leaderboard")
LANGUAGE_BY_SUFFIX = {".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hip": "hip", ".cu": "cuda", ".py": "triton"}
LANGUAGES = ("cpp", "hip", "cuda", "triton")
EXIT_OK, EXIT_VERDICT, EXIT_USAGE, EXIT_NO_SANDBOX = 0, 1, 2, 3
RUN_POLL_SECONDS = 1.0
RUN_MAX_SECONDS = 3 * 3600.0  # far above any job's limits: only a stuck judge reaches it


def default_workdir() -> Path:
    env = os.environ.get("HIPJUDGE_AGENT_WORKDIR")
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "hipjudge-agent"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m agent", description="HIPJudge agent")
    commands = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--workdir", type=Path, default=None,
                       help="jobs and compile cache (default: ~/.cache/hipjudge-agent)")
        p.add_argument("--device", choices=DEVICES, default="auto")
        p.add_argument("--arch", default=None,
                       help="GPU architecture, e.g. gfx942 or sm_90 (default: detected)")
        p.add_argument("--insecure-no-sandbox", action="store_true",
                       help="run user code without bubblewrap or Docker (trusted code only)")

    serve = commands.add_parser("serve", help="serve agent protocol v1 over HTTP")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8700, help="0 picks a free port")
    serve.add_argument("--token-file", type=Path, required=True, help="file holding the X-Agent-Token")
    serve.add_argument("--stop-after-silence", type=float, default=0.0, metavar="SECONDS",
                       help="stop when no request with the token came for this long (0: never); see agent.self_stop")
    common(serve)

    run = commands.add_parser("run", help="judge one source file and print a report")
    run.add_argument("file", type=Path)
    run.add_argument("--problem", required=True, help="problem slug, e.g. vector-add")
    run.add_argument("--language", choices=LANGUAGES, default=None,
                     help="default: from the file's suffix")
    run.add_argument("--mode", choices=MODES, default="benchmark")
    run.add_argument("--problems-dir", type=Path, default=Path("problems"))
    run.add_argument("--seed", type=int, default=None)
    run.add_argument("--ranked-seed", type=int, default=None,
                     help="mode leaderboard: the secret seed of the ranked inputs (default: a random one)")
    run.add_argument("--json", action="store_true", help="print the events as JSON lines instead of a report")
    common(run)

    jobs = commands.add_parser("jobs", help="judge job requests read from stdin (JSON lines), print events as "
                                            "JSON lines (protocol v1, agent.job_lines)")
    common(jobs)

    health = commands.add_parser("health", help="print what this machine offers, as JSON")
    common(health)
    return parser


def main(argv: list[str] | None = None) -> int:
    from agent.heap import keep_freed_memory

    args = build_parser().parse_args(argv)
    keep_freed_memory()  # jobs reuse their arrays' memory instead of faulting in fresh pages
    return {"serve": cmd_serve, "run": cmd_run, "jobs": cmd_jobs, "health": cmd_health}[args.command](args)


def _config(args: argparse.Namespace, device: str) -> Any:
    """The lead's AgentConfig, or None after printing why the agent cannot run here."""
    from agent.config import build_config
    from agent.sandbox.modes import SandboxUnavailable

    workdir = args.workdir or default_workdir()
    try:
        workdir.mkdir(parents=True, exist_ok=True)
        return build_config(workdir=workdir, device=device, arch=args.arch,
                            allow_insecure=args.insecure_no_sandbox)
    except SandboxUnavailable as exc:
        print(f"agent: {exc}", file=sys.stderr, flush=True)
        return None


# ---- serve ---------------------------------------------------------------------------------------
def read_token(path: Path) -> str:
    try:
        token = path.read_text().strip()
    except OSError as exc:
        raise SystemExit(f"agent: cannot read the token file {path}: {exc.strerror}") from None
    if not token:
        raise SystemExit(f"agent: the token file {path} is empty")
    return token


def cmd_serve(args: argparse.Namespace) -> int:
    from agent.config import health_info
    from agent.server import AgentServer

    token = read_token(args.token_file)
    config = _config(args, args.device)
    if config is None:
        return EXIT_NO_SANDBOX
    hide = getattr(config.sandbox, "hide", None)
    if callable(hide):  # the sandboxed child must never read the token
        hide(args.token_file)
    if getattr(config.sandbox, "secure", True) is False:
        print("agent: WARNING: running user code WITHOUT a sandbox (--insecure-no-sandbox)", file=sys.stderr)
    cached_health: dict[str, Any] = {}
    health_lock = threading.Lock()

    def health() -> dict:
        # Toolchain versions cost a subprocess each (about a second in all): ask once.
        with health_lock:
            if not cached_health:
                cached_health.update(health_info(config))
                cached_health.setdefault("sandbox", getattr(config.sandbox, "mode", None))
                cached_health.setdefault("insecure", not getattr(config.sandbox, "secure", False))
            return cached_health

    manager = JobManager(config)
    if args.stop_after_silence < 0:
        print("agent: --stop-after-silence must be 0 (never) or more", file=sys.stderr)
        return EXIT_USAGE
    watch = None
    try:
        server = AgentServer((args.host, args.port), token=token, manager=manager, health=health)
    except OSError as exc:
        print(f"agent: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE

    def shut_down() -> None:
        # shutdown() waits for serve_forever to return, so it must not run on serve_forever's thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    def stop(signum: int, _frame: Any) -> None:
        shut_down()

    if args.stop_after_silence:
        from agent.self_stop import SilenceWatch

        watch = SilenceWatch(args.stop_after_silence, shut_down).start()
        server.silence = watch
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    threading.Thread(target=health, name="health-warmup", daemon=True).start()
    print(f"agent listening on {server.url}", flush=True)
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        if watch is not None:
            watch.close()
        manager.shutdown()  # cancel a running job: no sandboxed process outlives the agent
        server.server_close()
    print("agent stopped", file=sys.stderr, flush=True)
    return EXIT_OK


# ---- run -------------------------------------------------------------------------------------
def cmd_run(args: argparse.Namespace) -> int:
    from agent.problems.bundle import ProblemError, load_problem_dir

    language = args.language or LANGUAGE_BY_SUFFIX.get(args.file.suffix)
    if language is None:
        print(f"agent: cannot tell the language of {args.file}; pass --language", file=sys.stderr)
        return EXIT_USAGE
    try:
        source = args.file.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"agent: cannot read {args.file}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        problem = load_problem_dir(args.problems_dir / args.problem)
    except ProblemError as exc:
        print(f"agent: problem {args.problem}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # --device auto: the GPU this machine has, else the host (where hip/cuda check on the emulator).
    config = _config(args, args.device)
    if config is None:
        return EXIT_NO_SANDBOX

    manager = JobManager(config)
    request = {"id": f"cli-{uuid.uuid4().hex[:12]}", "problem": problem.to_bundle(), "language": language,
               "source": source, "mode": args.mode, "seed": args.seed}
    if args.mode == "leaderboard":
        request["ranked_seed"] = args.ranked_seed if args.ranked_seed is not None else secrets.randbelow(2**63)
    try:
        job, _ = manager.submit(request)
    except ValueError as exc:
        print(f"agent: {exc}", file=sys.stderr)
        return EXIT_USAGE
    device = _device_label(job.spec, config)
    print(f"Judging {args.file} for {problem.slug} ({language}, {args.mode}, device {device})", flush=True)
    events = _follow(manager, job.id, as_json=args.json)
    if args.json:
        return _exit_code(job.result)
    title = f"{problem.title} · {language} · {args.mode} · {device}"
    print("\n" + format_report(events, title=title), end="", flush=True)
    return _exit_code(job.result)


def _device_label(spec: Any, config: Any) -> str:
    from agent.judging.judge import run_device

    device = run_device(spec, config) or config.device
    return "emulated (CPU, check only)" if device.startswith("emulated-") else device


def _follow(manager: JobManager, job_id: str, *, as_json: bool) -> list[dict]:
    """Print events as they come until the final RESULT; Ctrl-C cancels the job (and its sandbox)."""
    events: list[dict] = []
    deadline = time.monotonic() + RUN_MAX_SECONDS
    while time.monotonic() < deadline:
        try:
            found = manager.events(job_id, after=len(events), wait_seconds=RUN_POLL_SECONDS)
        except KeyboardInterrupt:
            print("\nagent: cancelling…", file=sys.stderr, flush=True)
            manager.cancel(job_id)
            continue
        if found is None:
            break
        state, new = found
        for event in new:
            line = json.dumps(event) if as_json else progress_line(event)
            if line:
                print(line, flush=True)
        events.extend(new)
        if state["state"] not in ("queued", "running") and state["last_seq"] == len(events):
            break
    else:
        manager.cancel(job_id)
    return events


def _exit_code(result: dict | None) -> int:
    return EXIT_OK if result and result.get("status") in SUCCESS_STATUSES else EXIT_VERDICT


# ---- jobs ----------------------------------------------------------------------------------------
def cmd_jobs(args: argparse.Namespace) -> int:
    from agent.job_lines import main_jobs

    config = _config(args, args.device)
    if config is None:
        return EXIT_NO_SANDBOX
    return main_jobs(config)


# ---- health ----------------------------------------------------------------------------------
def cmd_health(args: argparse.Namespace) -> int:
    from agent.config import health_info

    config = _config(args, args.device)
    if config is None:
        return EXIT_NO_SANDBOX
    print(json.dumps(health_info(config), indent=2, default=str))
    return EXIT_OK
