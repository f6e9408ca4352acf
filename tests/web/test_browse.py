"""The problem list's filter form (GET, no JavaScript): tag, data type and difficulty combine, each
option shows how many problems choosing it would list, a malformed value is a 400 page that says so;
every row shows its data types and how many users solved it, in a pinned number of queries."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.urls import reverse

from tests.submissions.browse_data import solve

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")


class ListPage(HTMLParser):
    """The slugs of the table's rows, each row's solved-by cell, and each select's options."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.slugs: list[str] = []
        self.solved_by: list[str] = []
        self.options: dict[str, list[tuple[str, str, bool]]] = {}  # select -> (value, label, selected)
        self._select: str | None = None
        self._text: list[str] | None = None
        self._into: list[Any] | None = None
        self._option: tuple[str, bool] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "select":
            self._select = a["name"]
            self.options[self._select or ""] = []
        elif tag == "option":
            self._option, self._text = (a.get("value") or "", "selected" in a), []
        elif tag == "span" and "slug" in (a.get("class") or "").split():
            self._text, self._into = [], self.slugs
        elif tag == "td" and a.get("data-testid") == "solved-by":
            self._text, self._into = [], self.solved_by

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "option" and self._option is not None and self._select and self._text is not None:
            self.options[self._select].append((self._option[0], "".join(self._text).strip(), self._option[1]))
            self._option, self._text = None, None
        elif tag in ("span", "td") and self._into is not None and self._text is not None:
            self._into.append("".join(self._text).strip())
            self._text, self._into = None, None


def page(client: Any, status: int = 200, **params: str) -> ListPage:
    response = client.get(reverse("problem-list"), params)
    assert response.status_code == status, response.content[:300]
    return ListPage(response.content.decode())


def test_the_filters_combine_in_a_plain_get_form(client: Any) -> None:
    html = client.get(reverse("problem-list")).content.decode()
    assert re.search(r'<form method="get" class="filters" aria-label="Filter problems">', html)
    everything = page(client)
    assert len(everything.slugs) > 30
    assert page(client, tag="gemm", type="fp8_e4m3fnuz").slugs == ["gemm-fp8", "gemm-fp8-blockwise",
                                                                   "gemm-fp8-blockwise-grouped"]
    chosen = page(client, tag="gemm", type="fp8_e4m3fnuz", difficulty="hard")
    assert chosen.slugs == ["gemm-fp8-blockwise", "gemm-fp8-blockwise-grouped"]
    # The form shows what was chosen.
    assert ("gemm", "gemm (2)", True) in chosen.options["tag"]  # beside type fp8_e4m3fnuz, hard
    assert [o for o in chosen.options["difficulty"] if o[2]] == [("hard", "hard (2)", True)]
    html = client.get(reverse("problem-list"), {"tag": "gemm", "type": "fp8_e4m3fnuz"}).content.decode()
    assert f'data-testid="problem-count">3 of {len(everything.slugs)} problems<' in html


def test_each_option_counts_what_choosing_it_would_list(client: Any) -> None:
    listing = page(client, tag="gemm")
    types = {value: label for value, label, _ in listing.options["type"] if value}
    for value in ("bfloat16", "half", "fp8_e4m3fnuz", "int8", "float"):
        shown = len(page(client, tag="gemm", type=value).slugs)
        assert types[value] == f"{value} ({shown})", (value, types[value])
    difficulties = {value: label for value, label, _ in listing.options["difficulty"] if value}
    assert set(difficulties) == {"easy", "medium", "hard"}
    for value, label in difficulties.items():
        assert label == f"{value} ({len(page(client, tag='gemm', difficulty=value).slugs)})"
    # A tag's count stands beside the other filters, not beside the tag already chosen.
    tags = {value: label for value, label, _ in page(client, tag="gemm", type="half").options["tag"] if value}
    assert tags["memory-bound"] == f"memory-bound ({len(page(client, tag='memory-bound', type='half').slugs)})"


def test_an_unknown_value_lists_nothing_and_a_malformed_one_is_a_400(client: Any) -> None:
    nothing = page(client, tag="no-such-tag")
    assert nothing.slugs == []
    assert ("no-such-tag", "no-such-tag (0)", True) in nothing.options["tag"]
    unknown_type = client.get(reverse("problem-list"), {"type": "fp8_e5m2"})
    assert unknown_type.status_code == 200
    assert "No problem matches these filters." in unknown_type.content.decode()
    for params in ({"difficulty": "extreme"}, {"tag": "<script>"}, {"type": "x" * 41}):
        response = client.get(reverse("problem-list"), params)
        assert response.status_code == 400, params
        html = response.content.decode()
        assert 'class="field-error" role="alert"' in html
        assert "<script>" not in html
    html = client.get(reverse("problem-list"), {"difficulty": "extreme"}).content.decode()
    assert "extreme is not one of easy, medium, hard" in html


def test_each_row_shows_its_data_types_and_how_many_users_solved_it(
        client_as: Any, make_user: Any, local_pool: Any, django_assert_max_num_queries: Any) -> None:
    for i in range(5):
        user = make_user(f"solver{i}")
        solve(user, "gemm-fp8-blockwise", pool=local_pool)
        for slug in ("vector-add", "softmax", "histogram")[: i % 3 + 1]:
            solve(user, slug, "CHECKED", pool=local_pool)
    solve(user, "gemm-int8", "WRONG_ANSWER", pool=local_pool)
    client = client_as(user)
    with django_assert_max_num_queries(8):  # one of them the best speed of light per pool
        listing = page(client)
    solved = dict(zip(listing.slugs, listing.solved_by, strict=True))
    assert solved["gemm-fp8-blockwise"] == "5"
    assert solved["vector-add"] == "5"
    assert solved["softmax"] == "3"
    assert solved["histogram"] == "1"
    assert solved["gemm-int8"] == "0"
    html = client.get(reverse("problem-list"), {"tag": "gemm", "type": "fp8_e4m3fnuz"}).content.decode()
    row = html[html.index("gemm-fp8-blockwise</span>"):]
    row = row[: row.index("</tr>")]
    assert re.findall(r'<span class="tag data-type">([^<]+)</span>', row) == ["fp8_e4m3fnuz", "float", "bfloat16"]
