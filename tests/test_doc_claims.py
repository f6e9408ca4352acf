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
