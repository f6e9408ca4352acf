"""Problem statements: Markdown with `$…$` / `$$…$$` math and highlighted code, rendered on the
server so the page reads without JavaScript (KaTeX then typesets the math in the browser)."""

from __future__ import annotations

from functools import lru_cache

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

LEXER_ALIASES = {"hip": "cpp", "cuda": "cuda", "cu": "cuda", "c++": "cpp", "triton": "python"}


def highlight_code(code: str, language: str) -> SafeString:
    """HTML for a code block (Pygments classes, styled by static/web/css/web.css)."""
    name = LEXER_ALIASES.get(language.lower(), language.lower()) or "text"
    try:
        lexer = get_lexer_by_name(name)
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    return mark_safe(highlight(code, lexer, HtmlFormatter(nowrap=True)))  # noqa: S308 - Pygments escapes


def _fence(code: str, language: str, _attrs: str) -> str:
    return highlight_code(code, language or "text")


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # html=False: statements cannot inject markup; math spans keep their TeX for KaTeX.
    md = MarkdownIt("commonmark", {"html": False, "highlight": _fence})
    md.use(dollarmath_plugin, double_inline=True)
    md.enable("table")
    # A table wider than the statement's column scrolls inside its own box instead of being cut.
    md.add_render_rule("table_open", lambda self, tokens, idx, options, env: '<div class="table-wrap"><table>\n')
    md.add_render_rule("table_close", lambda self, tokens, idx, options, env: "</table></div>\n")
    return md


@lru_cache(maxsize=64)
def _render(text: str) -> str:
    return _parser().render(text)


def render_statement(text: str) -> SafeString:
    text = text or ""
    if text.startswith("# "):  # the page already shows the title as its heading
        text = text.split("\n", 1)[1] if "\n" in text else ""
    return mark_safe(_render(text))  # noqa: S308 - markdown-it escapes text; raw HTML is off
