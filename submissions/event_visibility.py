"""What an event tells whom (infrastructure details are for staff). The VM_READY event keeps everything the agent
reported about its machine (host name, toolchain versions, dstack backend, region, instance type,
price) for staff; its owner sees what they need to read their results: the device and the GPU
architecture. Whether the VM was a cold start or a warm reuse is in the VM event, for everyone."""

from __future__ import annotations

from typing import Any

USER_MACHINE_FIELDS = ("device", "arch")


def event_payload(*, event_type: str, payload: dict[str, Any], staff: bool) -> dict[str, Any]:
    if staff or event_type != "VM_READY":
        return payload
    agent = payload.get("agent") or {}
    return {**payload, "agent": {key: agent[key] for key in USER_MACHINE_FIELDS if key in agent}}
