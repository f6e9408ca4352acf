#!/usr/bin/env python3
"""Copy the front-end files the pages use from node_modules/ into static/vendor/ (git-ignored).

Why copy instead of serving node_modules: only the files listed here become public, and
collectstatic / whitenoise see a small, stable tree. Run by scripts/setup.sh after `npm ci`.
Add an entry when a page needs another file: (package, path inside it, destination under vendor/).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "node_modules"
VENDOR = ROOT / "static" / "vendor"

FILES: list[tuple[str, str, str]] = [
    # Code editor (CodeMirror 5: plain scripts, no bundler needed) + C-like modes (C++, CUDA, HIP).
    ("codemirror", "lib/codemirror.js", "codemirror/codemirror.js"),
    ("codemirror", "lib/codemirror.css", "codemirror/codemirror.css"),
    ("codemirror", "mode/clike/clike.js", "codemirror/mode/clike.js"),
    ("codemirror", "mode/python/python.js", "codemirror/mode/python.js"),  # Triton submissions
    ("codemirror", "addon/edit/matchbrackets.js", "codemirror/addon/matchbrackets.js"),
    ("codemirror", "addon/edit/closebrackets.js", "codemirror/addon/closebrackets.js"),
    ("codemirror", "addon/display/placeholder.js", "codemirror/addon/placeholder.js"),
    ("codemirror", "LICENSE", "codemirror/LICENSE"),
    # Math in problem statements.
    ("katex", "dist/katex.min.js", "katex/katex.min.js"),
    ("katex", "dist/katex.min.css", "katex/katex.min.css"),
    ("katex", "LICENSE", "katex/LICENSE"),
    # Charts of the admin cost dashboard (UMD build: one script, no bundler).
    ("chart.js", "dist/chart.umd.min.js", "chartjs/chart.umd.min.js"),
    ("chart.js", "LICENSE.md", "chartjs/LICENSE.md"),
]
# Whole folders (KaTeX's fonts are referenced relative to its CSS).
TREES: list[tuple[str, str, str]] = [
    ("katex", "dist/fonts", "katex/fonts"),
]


def main() -> int:
    missing = [f"{pkg}/{src}" for pkg, src, _ in FILES + TREES if not (NODE / pkg / src).exists()]
    if missing:
        print("vendor_assets: missing (run `npm ci` first): " + ", ".join(missing), file=sys.stderr)
        return 1
    for pkg, src, dest in FILES:
        target = VENDOR / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(NODE / pkg / src, target)
    for pkg, src, dest in TREES:
        target = VENDOR / dest
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(NODE / pkg / src, target)
    print(f"vendor_assets: {len(FILES)} files and {len(TREES)} folders in {VENDOR.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
