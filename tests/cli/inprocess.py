"""The CLI's commands against the real API in this process: a stand-in for cli.api.Client that
sends each call through DRF's test client (no server, no sockets), raising ApiError as the real
client does."""

from __future__ import annotations

import json
from typing import Any

from cli.api import ApiError
from cli.main import main


class InProcessClient:
    server = "http://testserver"

    def __init__(self, api: Any) -> None:
        self.api = api
        self.calls: list[tuple[str, str]] = []

    def remaining(self) -> float:
        return float("inf")

    def call(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None) -> Any:
        self.calls.append((method, path))
        send = getattr(self.api, method.lower())
        url = f"/api/v1{path}"
        response = send(url, query or {}) if method == "GET" else send(url, body, format="json")
        payload = json.loads(response.content or b"null")
        if response.status_code >= 400:
            raise ApiError(response.status_code, (payload or {}).get("message") or f"HTTP {response.status_code}",
                           (payload or {}).get("extra"))
        return payload

    def text(self, path: str) -> str:
        self.calls.append(("GET", path))
        response = self.api.get(f"/api/v1{path}")
        if response.status_code >= 400:
            payload = json.loads(response.content or b"null") or {}
            raise ApiError(response.status_code, payload.get("message") or f"HTTP {response.status_code}")
        return str(response.content.decode())


def run_cli(monkeypatch: Any, api: Any, *argv: str) -> int:
    """`hipjudge argv` through main(), its HTTP calls answered in process."""
    monkeypatch.setattr("cli.main.Client", lambda server, token=None, **limits: InProcessClient(api))
    return main(["--server", "http://testserver", *argv])
