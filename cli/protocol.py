"""The CLI's copy of the agent's protocol words (agent/protocol.py): the event names and statuses it
reads in a submission's events. A copy, not an import: this distribution has no dependency, and a
shared package would make a third distribution for a dozen strings. tests/cli/test_protocol_copy.py
holds every name here equal to agent.protocol's, so adding an event type there fails that test until
it is copied here (docs/adding-an-event-type.md).

The platform adds events of its own to a submission's stream (VM, REQUEUED, ...): those are the
platform's, read by name in cli/output.py.
"""

from __future__ import annotations

PROTOCOL_VERSION = 1
STATUS = "STATUS"
COMPILE_RESULT = "COMPILE_RESULT"
TEST_RESULT = "TEST_RESULT"
BENCHMARK_RESULT = "BENCHMARK_RESULT"
RANKED_RESULT = "RANKED_RESULT"
HEARTBEAT = "HEARTBEAT"
RESULT = "RESULT"
EVENT_TYPES = (STATUS, COMPILE_RESULT, TEST_RESULT, BENCHMARK_RESULT, RANKED_RESULT, HEARTBEAT, RESULT)
STAGES = ("COMPILING", "CHECKING", "BENCHMARKING", "RANKING")
FINAL_STATUSES = ("ACCEPTED", "CHECKED", "COMPILED", "WRONG_ANSWER", "COMPILE_ERROR", "RUNTIME_ERROR",
                  "TIME_LIMIT_EXCEEDED", "CANCELLED", "ERROR")
SUCCESS_STATUSES = ("ACCEPTED", "CHECKED", "COMPILED")
