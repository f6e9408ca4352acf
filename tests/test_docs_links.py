"""Every relative link of README.md and docs/ resolves: the file exists inside the repository, and an
#anchor names a heading of the target as the forge renders it (GitHub's slugs). No document points
outside the repository, by a link or by a `../` path in its text. Reads files only: no network."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.conftest import ROOT

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def documents(root: Path = ROOT) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: the rendered text lowercased, punctuation and symbols dropped
    (letters, digits, `_` and `-` stay), each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link renders as its text
    text = CODE_SPAN.sub(lambda m: m.group(2), text)
    text = re.sub(r"<[^>]+>", "", text).replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    for _, line in prose_lines(path.read_text()):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            name, n = base, 0
            while name in found:  # a repeated heading gets -1, -2, ...
                n += 1
                name = f"{base}-{n}"
            found.add(name)
    return found


def link_targets(text: str) -> list[tuple[int, str]]:
    targets = []
    for number, line in prose_lines(text):
        reference = REFERENCE_LINK.match(line)
        if reference:
            targets.append((number, reference.group(1)))
        for match in INLINE_LINK.finditer(CODE_SPAN.sub("", line)):
            targets.append((number, match.group(1)))
    return targets


def inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


def broken_links(document: Path, root: Path = ROOT) -> list[str]:
    text, where = document.read_text(), document.relative_to(root)
    problems = []
    for number, target in link_targets(text):
        if SCHEME.match(target):
            continue  # a web address: not checked here (no network)
        file_part, _, anchor = target.partition("#")
        if file_part.startswith("/"):
            problems.append(f"{where}:{number}: {target}: an absolute path, not a link inside the repository")
            continue
        linked = (document.parent / unquote(file_part)) if file_part else document
        if not inside(linked, root):
            problems.append(f"{where}:{number}: {target}: points outside the repository")
        elif not linked.exists():
            problems.append(f"{where}:{number}: {target}: no such file")
        elif anchor and linked.suffix == ".md" and unquote(anchor) not in anchors(linked):
            problems.append(f"{where}:{number}: {target}: no heading with the anchor #{anchor}")
        elif anchor and linked.suffix != ".md":
            problems.append(f"{where}:{number}: {target}: an anchor into a file that has no headings")
    for number, line in prose_lines(text):
        for match in CODE_SPAN.finditer(line):
            path = match.group(2).split()[0] if match.group(2).split() else ""
            if path.startswith("../") and not inside(document.parent / path, root):
                problems.append(f"{where}:{number}: `{match.group(2)}`: a path outside the repository")
    return problems


@pytest.mark.parametrize("document", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(document: Path) -> None:
    assert broken_links(document) == []


def test_slugs_are_the_forges() -> None:
    emulator = "Check on CPU (emulated): HIP and CUDA without a GPU"
    assert slug(emulator) == "check-on-cpu-emulated-hip-and-cuda-without-a-gpu"
    assert slug("What a policy costs (`bench/costsim.py`)") == "what-a-policy-costs-benchcostsimpy"
    assert slug("On a real NVIDIA GPU (H100, 2026-11-27)") == "on-a-real-nvidia-gpu-h100-2026-11-27"
    assert slug("Leaderboards: ranked results, review, rejudge") == "leaderboards-ranked-results-review-rejudge"
    assert slug("snake_case and *emphasis* › arrows") == "snake_case-and-emphasis--arrows"


def test_it_names_each_kind_of_broken_link(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# A page\n\n## Twice\n\n## Twice\n")
    (tmp_path / "code.py").write_text("")
    (tmp_path / "README.md").write_text(
        "# Top\n\n"
        "[fine](docs/page.md#twice-1) [self](#top) [code](code.py) [web](https://example.org/x#y)\n"
        "[gone](docs/gone.md) [anchor](docs/page.md#thrice) [out](../shared/DESIGN.md)\n"
        "[abs](/etc/passwd) [line](code.py#L1) `../shared/notes/dstack.md`\n"
        "```\n[in code](nowhere.md)\n```\n"
        "`[in a span](nowhere.md)`\n"
        "[ref]: docs/missing.md\n"
    )
    assert [problem.split(": ", 1)[1] for problem in broken_links(tmp_path / "README.md", tmp_path)] == [
        "docs/gone.md: no such file",
        "docs/page.md#thrice: no heading with the anchor #thrice",
        "../shared/DESIGN.md: points outside the repository",
        "/etc/passwd: an absolute path, not a link inside the repository",
        "code.py#L1: an anchor into a file that has no headings",
        "docs/missing.md: no such file",
        "`../shared/notes/dstack.md`: a path outside the repository",
    ]
