"""A read query of the hot paths compiled to SQL once per process, then run with other values.

Django compiles a queryset to SQL at every evaluation; for a query with a window, CASE expressions
and joins (a user's bests, a token with its user) that costs more CPU than the database spends
answering it. A PreparedQuery builds its queryset once with marker values in place of the
arguments, compiles it, finds where each marker went among the SQL's parameters, and from then on
runs that SQL with the real values put there. Rows still come back through Django's own iterables
(model instances with select_related, values, values_list), so the caller reads what the plain
queryset would have given.

It falls back to building and running the plain queryset, every time, when it cannot be sure the
compiled SQL fits: a marker that did not reach the parameters as Django makes them of a value of its
type (an int or a str as it is, a datetime through the backend's adapter for a DateTimeField), or
that shows in the SQL text, or a value of another type than its marker (None would compile to IS
NULL, a bool is no int).

Only for queries whose SQL does not depend on settings or the clock besides its arguments: the
build function runs once per process (again after a test changes a setting).
"""

from __future__ import annotations

import copy
import threading
import weakref
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

from django.core.signals import setting_changed
from django.db import connections
from django.db.models import QuerySet
from django.db.transaction import TransactionManagementError

T = TypeVar("T")

# Markers no real argument takes: a negative id (inside a 32-bit column's range: Django compiles a
# lookup of a value out of the column's range to no comparison at all), a string with control
# characters, a moment in 1970.
_MARKER_INT = -1_987_654_321
_MARKER_TIME = datetime(1970, 1, 2, 3, 4, 5, tzinfo=UTC)


def _adapted(value: Any, connection: Any) -> Any:
    """The parameter Django makes of an argument: a datetime compared with a DateTimeField goes through
    the backend's adapter (a string on SQLite, itself on PostgreSQL); an int or a str as it is."""
    if isinstance(value, datetime):
        return connection.ops.adapt_datetimefield_value(value)
    return value


def _marker(kind: type, index: int) -> Any:
    if kind is int:
        return _MARKER_INT - index
    if kind is str:
        return f"\x1fprepared-query-marker-{index}\x1f"
    if kind is datetime:
        return _MARKER_TIME + timedelta(microseconds=index)
    raise TypeError(f"PreparedQuery: no marker for {kind.__name__} (int, str or datetime)")


class _Compiled:
    def __init__(self, template: QuerySet[Any], compiler: Any, sql: str, params: tuple[Any, ...],
                 slots: dict[str, list[int]]) -> None:
        self.template, self.compiler, self.sql, self.params, self.slots = template, compiler, sql, params, slots


_UNPREPARABLE = object()  # the plain queryset, every time


class PreparedQuery(Generic[T]):
    """`build(**arguments)` returns the queryset; `arguments` names each argument's type (int, str
    or datetime). `fetch(**values)` is list(build(**values)), compiled once."""

    _all: weakref.WeakSet[PreparedQuery[Any]] = weakref.WeakSet()

    def __init__(self, build: Callable[..., QuerySet[Any]], **arguments: type) -> None:
        self._build, self._types = build, arguments
        self._compiled: _Compiled | object | None = None
        self._lock = threading.Lock()
        PreparedQuery._all.add(self)

    @property
    def prepared(self) -> bool:
        """Whether fetch runs compiled SQL (tests assert that the hot queries do)."""
        return isinstance(self._compile(), _Compiled)

    def fetch(self, **values: Any) -> list[T]:
        if values.keys() != self._types.keys():
            raise TypeError(f"PreparedQuery.fetch: expected {sorted(self._types)}, got {sorted(values)}")
        compiled = self._compile()
        if not isinstance(compiled, _Compiled) or any(type(v) is not self._types[k] for k, v in values.items()):
            return list(self._build(**values))
        connection = connections[compiled.template.db]
        params = list(compiled.params)
        for name, positions in compiled.slots.items():
            for position in positions:
                params[position] = _adapted(values[name], connection)
        if (compiled.template.query.select_for_update and connection.features.has_select_for_update
                and connection.get_autocommit()):
            # Django's own check, which lives in the compiling skipped here.
            raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
        # A copy of the compiled compiler (it holds what the iterables read: the select list, the
        # related models' layout, the column count) answering with the SQL already made, on this
        # thread's connection. The queryset is a clone of the template, so nothing shared changes.
        compiler = copy.copy(compiled.compiler)
        compiler.connection = connection
        compiler.as_sql = lambda *_args, **_kwargs: (compiled.sql, tuple(params))
        queryset = compiled.template.all()
        queryset.query.get_compiler = lambda *_args, **_kwargs: compiler  # type: ignore[method-assign]
        return list(queryset)

    def _compile(self) -> _Compiled | object:
        if self._compiled is None:
            with self._lock:
                if self._compiled is None:
                    self._compiled = self._prepare()
        return self._compiled

    def _prepare(self) -> _Compiled | object:
        markers = {name: _marker(kind, i) for i, (name, kind) in enumerate(self._types.items())}
        template = self._build(**markers)
        compiler = template.query.get_compiler(using=template.db)
        sql, params = compiler.as_sql()
        slots: dict[str, list[int]] = {}
        for name, marker in markers.items():
            param = _adapted(marker, compiler.connection)
            positions = [i for i, p in enumerate(params) if type(p) is type(param) and p == param]
            if not positions or str(param) in sql:
                return _UNPREPARABLE
            slots[name] = positions
        return _Compiled(template, compiler, sql, tuple(params), slots)

    def reset(self) -> None:
        with self._lock:
            self._compiled = None


def _settings_changed(**_kwargs: Any) -> None:
    for query in list(PreparedQuery._all):
        query.reset()


setting_changed.connect(_settings_changed)
