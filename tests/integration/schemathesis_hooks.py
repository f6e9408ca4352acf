"""Schemathesis hooks of the contract test (loaded through SCHEMATHESIS_HOOKS by test_schema_contract.py).

`POST /api/v1/auth/token` takes a username and a password. Any string is valid by the schema, but only
an account's own pair gets a token: with made-up pairs every well-formed request is refused (400),
the token-issuing path is never reached, and Schemathesis rightly reports that the operation "mostly
rejected generated data". The schema cannot name a valid account, so the test gives Schemathesis the
persona's own: each well-formed (positive) body is sent with them, other fields as generated. Malformed
(negative) bodies stay as generated, so their refusal is still checked.
"""

from __future__ import annotations

import os
from typing import Any

import schemathesis
from schemathesis import GenerationMode

TOKEN_OPERATION = "POST /api/v1/auth/token"


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    meta = case.meta
    positive = meta is not None and meta.generation.mode == GenerationMode.POSITIVE
    if case.operation.label == TOKEN_OPERATION and positive and isinstance(case.body, dict):
        case.body = {**case.body, "username": os.environ["HIPJUDGE_CONTRACT_USERNAME"],
                     "password": os.environ["HIPJUDGE_CONTRACT_PASSWORD"]}
    return case
