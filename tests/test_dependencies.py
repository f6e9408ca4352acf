"""The app dependency graph drawn in docs/architecture.md, checked against the imports of the code;
the agent's declared surface (agent.protocol, agent.problems) and the order of its folders."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, django_process

APPS = ("core", "accounts", "fleets", "submissions", "leaderboard", "billing", "limits", "ops", "web")
# app -> the apps (and first-party packages) its modules may import.
ALLOWED = {
    "core": set(),
    "accounts": {"core"},
    "fleets": {"core", "agent"},
    "submissions": {"core", "accounts", "fleets", "billing", "limits", "agent"},
    "leaderboard": {"core", "fleets", "submissions", "agent"},
    "billing": {"core", "fleets", "submissions"},
    "limits": {"core", "fleets", "billing", "submissions"},
    "ops": {"core", "fleets", "billing", "submissions"},
    "web": {"core", "accounts", "fleets", "submissions", "leaderboard", "billing", "limits", "agent"},
    "agent": set(),
    "cli": set(),
}
# Edges docs/architecture.md names as exceptions: fleets' admin page shows billing's cost per VM.
# Submissions imports nothing of the leaderboard: what shows both (the pages, the REST API, the
# submission's admin page) is web's, and the leaderboard hears of a judging's end through the signals
# submissions sends (submissions.signals).
EXCEPTIONS = {("fleets/admin.py", "billing")}
FIRST_PARTY = {*APPS, "agent", "cli", "config"}


# What the platform may import of the agent: these modules, by name (`from agent.problems import
# Problem`, never `agent.problems.bundle`). Tests and bench/ reach inside; every other module outside
# agent/ counts, so the agent's modules can move without the platform noticing.
AGENT_SURFACE = {"agent.protocol", "agent.problems"}
NOT_PLATFORM = {"agent", "tests", "bench", "node_modules", "var", "static", "templates", "docs"}
# A folder of agent/ -> the folders (and top-level modules) its modules may import, annotations under
# TYPE_CHECKING aside: problems and the sandbox at the bottom, then the devices (and the memory the
# parent shares with the child), the harness, the emulator and the languages beside it, judging and
# the top level above all. `protocol` is the top-level module that defines the protocol's words; it
# imports no folder above the emulator and the languages, so judging may read it.
AGENT_LAYERS = {
    "problems": {"problems"},
    "sandbox": {"sandbox"},
    "devices": {"devices", "problems"},
    "harness": {"harness", "sandbox", "problems", "devices"},
    "emulator": {"emulator", "sandbox", "problems"},
    "languages": {"languages", "harness", "sandbox", "problems", "devices"},
    "judging": {"judging", "languages", "emulator", "harness", "sandbox", "problems", "devices", "protocol"},
}


def imported_packages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
    return found


def modules(package: str) -> list[Path]:
    return [p for p in sorted((ROOT / package).rglob("*.py")) if "migrations" not in p.parts]


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_each_app_imports_only_what_the_graph_allows(package: str) -> None:
    wrong = []
    for path in modules(package):
        relative = str(path.relative_to(ROOT))
        for imported in (imported_packages(path) & FIRST_PARTY) - {package} - ALLOWED[package]:
            if (relative, imported) not in EXCEPTIONS:
                wrong.append(f"{relative} imports {imported}")
    assert wrong == []


def imported_modules(path: Path, *, annotations: bool = True) -> set[str]:
    """Every first-party module a file imports, dotted (`from agent import protocol`: agent.protocol);
    without `annotations`, those imported under `if TYPE_CHECKING:` are left out."""
    skipped: set[int] = set()
    tree = ast.parse(path.read_text())
    if not annotations:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                skipped |= {id(inner) for statement in node.body for inner in ast.walk(statement)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module in FIRST_PARTY:
                found |= {f"{node.module}.{alias.name}" for alias in node.names}
            else:
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.split(".")[0] in FIRST_PARTY}


def platform_files() -> list[Path]:
    tops = [p for p in sorted(ROOT.iterdir()) if p.is_dir() and p.name not in NOT_PLATFORM
            and not p.name.startswith(".") and not p.name.endswith(".egg-info")]
    return sorted(ROOT.glob("*.py")) + [p for top in tops for p in sorted(top.rglob("*.py"))]


def test_outside_the_agent_only_its_protocol_and_problems_are_imported() -> None:
    wrong = []
    for path in platform_files():
        allowed = AGENT_SURFACE
        for name in imported_modules(path):
            if name.split(".")[0] == "agent" and name not in allowed:
                wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert wrong == []


def test_the_surface_rule_sees_what_it_must(tmp_path: Path) -> None:
    """The scan finds the platform's files, and reads each way of naming an agent module."""
    files = {str(p.relative_to(ROOT)) for p in platform_files()}
    assert {"manage.py", "config/settings.py", "submissions/services.py", "fleets/models.py"} <= files
    assert not any(name.split("/")[0] in NOT_PLATFORM for name in files)
    probe = tmp_path / "probe.py"
    probe.write_text("import agent.judging.jobs\nfrom agent import protocol, sandbox\n"
                     "from agent.problems import Problem\nfrom agent.problems.bundle import Problem\n"
                     "if TYPE_CHECKING:\n    from agent.harness.calls import Caller\n")
    assert imported_modules(probe) == {"agent.judging.jobs", "agent.protocol", "agent.sandbox", "agent.problems",
                                       "agent.problems.bundle", "agent.harness.calls"}
    assert "agent.harness.calls" not in imported_modules(probe, annotations=False)


@pytest.mark.parametrize("folder", sorted(AGENT_LAYERS))
def test_the_agent_folders_import_downwards_only(folder: str) -> None:
    wrong = []
    for path in modules(f"agent/{folder}"):
        for name in imported_modules(path, annotations=False):
            parts = name.split(".")
            if parts[0] == "agent" and len(parts) > 1 and parts[1] not in AGENT_LAYERS[folder]:
                wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert wrong == []


def test_every_agent_folder_has_its_layer() -> None:
    folders = {p.name for p in (ROOT / "agent").iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert folders == set(AGENT_LAYERS)


def agent_import_graph() -> dict[str, set[str]]:
    """Folder (or top-level module) of agent/ -> those its modules import at run time."""
    graph: dict[str, set[str]] = {}
    for path in modules("agent"):
        parts = path.relative_to(ROOT / "agent").parts
        source = parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")
        for name in imported_modules(path, annotations=False):
            target = name.split(".")[1:2]
            if name.split(".")[0] == "agent" and target and target[0] != source:
                graph.setdefault(source, set()).add(target[0])
    return graph


def test_the_agent_has_no_import_cycle() -> None:
    """Between its folders and top-level modules: the layers above, and the top level's own order."""
    graph = agent_import_graph()
    cycles = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*path[path.index(nxt):], node, nxt] if nxt in path else [node, nxt]))
            elif nxt not in state:
                walk(nxt, [*path, node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node, [])
    assert cycles == []


def test_the_cycle_check_sees_a_cycle(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = {"judging": {"emulator"}, "emulator": {"judging"}}
    monkeypatch.setattr(sys.modules[__name__], "agent_import_graph", lambda: fake)
    with pytest.raises(AssertionError):
        test_the_agent_has_no_import_cycle()


def test_the_agent_surface_loads_no_numpy() -> None:
    """The submissions app imports agent.protocol when it starts (submissions/apps.py) and the web
    process evaluates problem formulas through agent.problems: neither may bring NumPy into a process
    that needs none."""
    code = ("import sys, agent.protocol, agent.problems; agent.problems.evaluate('2*n', {'n': 3}); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'yaml')))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


# What importing agent.protocol may load of the agent: the modules whose constants it shares (the
# resource limits a request carries: a dataclass of the standard library), none of the judge, the
# harness, the devices or the sandbox's processes. The judge runs in an agent process of its own.
PROTOCOL_LOADS = {"agent", "agent.protocol", "agent.problems", "agent.problems.roofline", "agent.sandbox",
                  "agent.sandbox.resources", "agent.emulator", "agent.emulator.budget", "agent.emulator.target",
                  "agent.languages", "agent.languages.triton", "agent.languages.triton.budget"}


def test_importing_the_protocol_loads_no_judge() -> None:
    code = "import sys, agent.protocol; print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] == 'agent')))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    loaded = set(result.stdout.split())
    assert "agent.protocol" in loaded
    assert loaded - PROTOCOL_LOADS == set()


def test_the_protocol_lends_nothing_of_the_judge() -> None:
    """No module-level __getattr__: what protocol.py offers is what it defines or imports."""
    import agent.protocol

    assert not hasattr(agent.protocol, "__getattr__")
    assert {"judge", "JobSpec", "AgentConfig", "build_config", "SandboxUnavailable"}.isdisjoint(dir(agent.protocol))
    assert set(agent.protocol.__all__) <= set(dir(agent.protocol))


def drawn_graph() -> dict[str, set[str]]:
    """`app ─► a, b (a note)` lines of the page's picture: each app and the packages it may import."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    picture = next(block for block in re.findall(r"```\n(.*?)```", text, re.S) if "every app" in block)
    graph = {}
    for line in picture.split("\n\n")[0].splitlines():
        name, _, targets = line.partition("─►")
        if name.strip() in APPS:
            graph[name.strip()] = {t.strip() for t in re.sub(r"\([^)]*\)", "", targets).split(",") if t.strip()}
    return graph


def test_the_drawn_graph_is_the_one_enforced() -> None:
    drawn = drawn_graph()
    assert sorted(drawn) == sorted(set(APPS) - {"core"})  # core imports no app: it has no line
    assert {app: targets | {"core"} for app, targets in drawn.items()} == {app: ALLOWED[app] for app in drawn}
    assert ALLOWED["core"] == set()


# Apps that only read submissions (their writes go through a signal submissions receives).
READERS_OF_SUBMISSIONS = {
    "billing": {"submissions.models", "submissions.selectors", "submissions.vm_starts"},
    "limits": {"submissions.models", "submissions.selectors", "submissions.offers"},
}


@pytest.mark.parametrize("package", sorted(READERS_OF_SUBMISSIONS))
def test_billing_and_limits_only_read_submissions(package: str) -> None:
    writes = []
    for path in modules(package):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("submissions."):
                if node.module not in READERS_OF_SUBMISSIONS[package]:
                    writes.append(f"{path.relative_to(ROOT)}: from {node.module}")
    assert writes == []


def test_the_admission_gate_is_asked_once_and_only_by_submission_create() -> None:
    """limits.admission is the one home of "why was my POST refused": outside limits, only
    submission_create (which the API and the form call) asks it, once, and nothing reaches past
    submission_refusal to one of its checks, which would skip or reorder the others."""
    asked = set()
    for package in sorted(set(ALLOWED) - {"limits"}):
        for path in modules(package):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module == "limits.admission":
                    asked |= {(str(path.relative_to(ROOT)), alias.name) for alias in node.names}
    assert asked == {("submissions/services.py", "submission_refusal")}
    tree = ast.parse((ROOT / "submissions" / "services.py").read_text())
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == "submission_refusal"]
    assert len(calls) == 1


def test_every_refusal_type_lives_in_core_exceptions() -> None:
    """The exceptions that answer with an HTTP status are core's, whichever app raises them."""
    from core.exceptions import ApplicationError

    refusal_types = {ApplicationError.__name__} | {cls.__name__ for cls in ApplicationError.__subclasses__()}
    defined_elsewhere = []
    for package in sorted(ALLOWED):
        for path in modules(package):
            for node in ast.walk(ast.parse(path.read_text())):
                bases = {base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
                         for base in getattr(node, "bases", [])}
                if isinstance(node, ast.ClassDef) and bases & refusal_types and path != ROOT / "core" / "exceptions.py":
                    defined_elsewhere.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert defined_elsewhere == []


def test_the_agent_and_the_cli_never_import_django() -> None:
    for package in ("agent", "cli"):
        for path in modules(package):
            assert not imported_packages(path) & {"django", "rest_framework"}, path


def test_web_and_worker_processes_start_without_numpy() -> None:
    """numpy is the agent's (inputs, references, comparisons): the platform reads only constants of
    the agent's modules, and a web or worker process that imported numpy at start-up paid about a
    tenth of a second more for each of the many it starts (tests start dozens)."""
    result = django_process("import config.asgi, config.urls, submissions.tasks, leaderboard.tasks, fleets.tasks, "
                            "billing.tasks; "
                            "print('numpy' in sys.modules)", ("manage.py", "qcluster"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
