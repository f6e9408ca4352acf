"""`problem new SLUG`: a complete bundle under problems/SLUG/, copied from skeleton/ (an elementwise
example, z = alpha x + y) with the slug and title filled in. It loads and passes `problem check` as
written, so an author edits from a working state."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from agent.problems import SLUG_RE, TITLE_MAX_CHARS

SKELETON = Path(__file__).with_name("skeleton")


class AuthoringError(ValueError):
    """A request an author can fix (a bad or taken slug); the message says how."""


def default_title(slug: str) -> str:
    return " ".join(word.capitalize() for word in slug.split("-") if word)


def new_problem(root: Path, slug: str, title: str | None = None) -> Path:
    """Write problems/<slug>/ under `root`; refuses a bad slug or one whose folder exists."""
    if not SLUG_RE.match(slug) or slug.endswith("-") or "--" in slug:
        raise AuthoringError(f"{slug!r} is not a problem slug: 2 to 63 lowercase letters, digits and single "
                             "'-' between words, starting with a letter or digit (e.g. rmsnorm-bf16)")
    target = Path(root) / slug
    if target.exists():
        raise AuthoringError(f"{target} already exists: choose another slug, or edit that problem")
    text_title = title or default_title(slug)
    if not text_title.strip() or "\n" in text_title:
        raise AuthoringError("the title must be one non-empty line")
    if len(text_title) > TITLE_MAX_CHARS:
        raise AuthoringError(f"the title has {len(text_title)} characters; at most {TITLE_MAX_CHARS}")
    staging = target.with_name(f".{slug}.new")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(SKELETON, staging)
    for path in sorted(p for p in staging.rglob("*") if p.is_file()):
        text = path.read_text()
        # In YAML the title is a JSON string (valid YAML whatever its quotes and colons).
        text = text.replace('"{{title}}"', json.dumps(text_title)).replace("{{title}}", text_title)
        path.write_text(text.replace("{{slug}}", slug))
    staging.rename(target)  # all files or none: a half-written bundle would not load
    return target
