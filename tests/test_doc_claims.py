"""Claims of the docs that can be counted or listed, held to the tree: a successor acts on them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import ROOT

DOCS = ROOT / "docs"


def test_the_hostile_corpus_is_as_large_as_agent_md_says() -> None:
    said = re.search(r"`tests/agent/corpus/` holds (\d+) hostile submissions", (DOCS / "agent.md").read_text())
    assert said is not None
    files = [p for p in (ROOT / "tests" / "agent" / "corpus").iterdir() if p.is_file() and not p.name.startswith(".")]
    assert int(said[1]) == len(files)


def _imports_when_loaded(path: Path) -> set[str]:
    """What importing the module imports: its top-level statements' imports (functions' own imports
    run when called; those under `if TYPE_CHECKING:` never)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_package_inits_import_nothing_of_another_folder_when_loaded() -> None:
    """docs/agent.md: the sandboxed child imports these packages on its way to its device binding."""
    wrong = []
    for init in sorted((ROOT / "agent").rglob("__init__.py")):
        folder = ".".join(init.parent.relative_to(ROOT).parts)
        for name in _imports_when_loaded(init):
            if name.startswith("agent") and not name.startswith(folder + ".") and name != folder:
                wrong.append(f"{init.relative_to(ROOT)} imports {name}")
            if name.split(".")[0] in ("numpy", "yaml", "pathlib"):
                wrong.append(f"{init.relative_to(ROOT)} imports {name}")
    assert wrong == []


def test_every_helper_module_under_tests_is_where_testing_md_says() -> None:
    """Shared helpers live in tests/support/; testing.md names every other module that is not a test."""
    text = (DOCS / "testing.md").read_text()
    named = set()
    for group in re.findall(r"`(tests/[^`]+\.py)`", text):
        head, _, tail = group.partition("{")
        if tail:
            stem_dir = head
            for name in tail.rstrip("}.py").rstrip("}").split(","):
                named.add(f"{stem_dir}{name.strip()}.py")
        else:
            named.add(group)
    helpers = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py")
               if not p.name.startswith("test_") and p.name not in ("conftest.py", "__init__.py")
               and "support" not in p.relative_to(ROOT).parts
               and not any(part.startswith("corpus") for part in p.relative_to(ROOT).parts)}  # attacks: data
    assert helpers - named == set()


# The pages a successor acts on step by step: every code name they give in backticks must exist.
NAMED_CODE_PAGES = ("walk-a-submission.md", "walk-an-agent-job.md", "adding-a-device.md", "adding-a-problem.md",
                    "adding-a-language.md", "adding-an-event-type.md")
TOP_PACKAGES = ("agent", "accounts", "billing", "cli", "config", "core", "fleets", "leaderboard", "limits", "ops",
                "submissions", "web", "tests", "bench")
_SPAN = re.compile(r"`([^`\n]+)`")
_DOTTED = re.compile(rf"(?:{'|'.join(TOP_PACKAGES)})(?:\.[A-Za-z_]\w*)+")
_PATH = re.compile(r"(?:[\w.-]+/)+[\w.-]+\.(?:py|js|sh|md|yaml|cpp|html)(?:::\w+)?")


def _defined(tree: ast.Module | ast.ClassDef) -> dict[str, ast.AST]:
    """Names a module or class body defines: functions, classes, assignments, imports."""
    found: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign):
            found.update({t.id: node for t in node.targets if isinstance(t, ast.Name)})
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = node
        elif isinstance(node, ast.ImportFrom | ast.Import):
            found.update({(a.asname or a.name).split(".")[0]: node for a in node.names})
    return found


def _dotted_problem(name: str) -> str | None:
    """Why `name` (package.module.attr[.attr]) names nothing in the tree, or None."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:cut])
        module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if module.is_file():
            break
    else:
        return f"{name}: no such module"
    scope: ast.Module | ast.ClassDef = ast.parse(module.read_text())
    for attr in parts[cut:]:
        node = _defined(scope).get(attr)
        if node is None:
            return f"{name}: {module.relative_to(ROOT)} defines no {attr}"
        if not isinstance(node, ast.ClassDef):
            return None if attr == parts[-1] else f"{name}: {attr} is not a class"
        scope = node
    return None


def _path_problem(text: str) -> str | None:
    path, _, test = text.partition("::")
    if not (ROOT / path).is_file():
        return f"{text}: no such file"
    if test and test not in _defined(ast.parse((ROOT / path).read_text())):
        return f"{text}: {path} defines no {test}"
    return None


def named_code(text: str) -> set[str]:
    """The dotted names and paths given in backticks (a span with a space is prose or a command). A
    path counts when its first folder is one of the repository's: `solutions/wrong.cpp` is a
    problem's file, not ours."""
    named = set()
    for span in _SPAN.findall(text):
        span = span.removesuffix("()")
        if (_PATH.fullmatch(span) and (ROOT / span.split("/")[0]).is_dir()) or _DOTTED.fullmatch(span):
            named.add(span)
    return named


def test_every_code_name_in_the_walks_and_how_tos_exists() -> None:
    wrong = []
    for page in NAMED_CODE_PAGES:
        for name in sorted(named_code((DOCS / page).read_text())):
            problem = _path_problem(name) if _PATH.fullmatch(name) else _dotted_problem(name)
            if problem:
                wrong.append(f"{page}: {problem}")
    assert wrong == []


def test_the_name_check_finds_a_renamed_function_a_missing_file_and_a_missing_test() -> None:
    text = ("`submissions.services.submission_create` `submissions.services.no_such_thing` "
            "`agent.judging.jobs.JobManager.submit` `agent.judging.jobs.JobManager.nope` `agent/nope.py` "
            "`tests/test_doc_claims.py::test_every_code_name_in_the_walks_and_how_tos_exists` "
            "`tests/test_doc_claims.py::test_gone` `manage.py problem check` `web.progress` `solutions/wrong.cpp`")
    names = named_code(text)
    assert "manage.py problem check" not in names and "solutions/wrong.cpp" not in names
    found = {n: (_path_problem(n) if _PATH.fullmatch(n) else _dotted_problem(n)) for n in names}
    assert [n for n, problem in sorted(found.items()) if problem] == [
        "agent.judging.jobs.JobManager.nope", "agent/nope.py", "submissions.services.no_such_thing",
        "tests/test_doc_claims.py::test_gone"]
