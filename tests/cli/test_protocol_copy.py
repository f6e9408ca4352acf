"""The CLI's copy of the agent's protocol words (cli/protocol.py) equals agent/protocol.py: the CLI is a
distribution of its own and cannot import the agent, so a new or changed event name or status in
the protocol fails here until it is copied. What the CLI checks of each payload (cli/shapes.py) are
keys the agent's typed payloads have."""

from __future__ import annotations

import ast
from pathlib import Path

from agent import protocol as agent_protocol
from cli import codes, shapes
from cli import protocol as cli_protocol

COPIED = [name for name in dir(cli_protocol) if name.isupper()]


def test_every_name_of_the_cli_copy_equals_the_agents() -> None:
    assert {name: getattr(cli_protocol, name) for name in COPIED} == {
        name: getattr(agent_protocol, name) for name in COPIED}


def test_the_cli_copy_has_every_event_name_and_status_list_of_the_protocol() -> None:
    event_names = {name for name in dir(agent_protocol) if name.isupper()
                   and getattr(agent_protocol, name) in agent_protocol.EVENT_TYPES}
    assert event_names | {"EVENT_TYPES", "STAGES", "FINAL_STATUSES", "SUCCESS_STATUSES", "PROTOCOL_VERSION"} <= set(
        COPIED)


def test_the_cli_reads_only_keys_the_agents_payloads_have() -> None:
    for kind, shape in shapes.PAYLOADS.items():
        keys = {key.rstrip("?") for key in shape}
        typed = agent_protocol.EVENT_PAYLOADS[kind]
        assert keys <= set(typed.__required_keys__) | set(typed.__optional_keys__), kind
    assert set(codes.SUCCESS.values()) <= set(cli_protocol.SUCCESS_STATUSES)


def test_the_cli_copy_imports_nothing() -> None:
    tree = ast.parse(Path(cli_protocol.__file__).read_text())
    imported = [ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]
    assert imported == ["from __future__ import annotations"]
