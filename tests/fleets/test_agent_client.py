"""The platform's agent client refuses an answer it should not read whole."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from fleets.agent_client import AgentClient, AgentError
from tests.support import fake_agent


@pytest.fixture
def agent():
    with fake_agent.running(fake_agent.FakeAgent()) as running:
        running.jobs["job-1"] = {"id": "job-1"}
        yield running


def test_an_answer_over_the_cap_is_an_agent_error_not_a_full_read(agent) -> None:
    agent.script = [("RESULT", {"status": "RUNTIME_ERROR", "reason": "x" * (2 << 20)})]
    client = AgentClient(agent.url, fake_agent.TOKEN, max_response_bytes=1 << 20)
    with pytest.raises(AgentError, match="more than 1048576 bytes"):
        client.events("job-1")
    client.close()
    assert AgentClient(agent.url, fake_agent.TOKEN).events("job-1")["events"][0]["type"] == "RESULT"


def test_json_nested_past_the_recursion_limit_is_an_agent_error() -> None:
    deep = b'{"job": {}, "events": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"

    class Deep(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(deep)))
            self.end_headers()
            self.wfile.write(deep)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Deep)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        with pytest.raises(AgentError, match="non-JSON"):
            AgentClient(f"http://127.0.0.1:{server.server_address[1]}", "t").events("job-1")
    finally:
        server.shutdown()
        server.server_close()
