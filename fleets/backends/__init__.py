"""VM backends by kind, imported on first use (the dstack backend loads dstack's client)."""

from __future__ import annotations

from importlib import import_module

from fleets.backends.base import Backend, CapacityError, Orphan, Provisioned, ProvisionError

# kind -> "module:attribute" of a zero-argument factory returning a Backend.
REGISTRY: dict[str, str] = {
    "local": "fleets.backends.local:LocalBackend",
    "dstack": "fleets.dstack_pools.backend:DstackBackend",
    "sim": "fleets.backends.sim:SimBackend",
}


class BackendUnavailable(ProvisionError):
    pass


def get_backend(kind: str) -> Backend:
    target = REGISTRY.get(kind)
    if target is None:
        raise BackendUnavailable(f"unknown VM backend {kind!r}")
    module_name, _, attr = target.partition(":")
    try:
        factory = getattr(import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise BackendUnavailable(f"the {kind} backend is not available in this installation ({exc})") from exc
    backend = factory()
    return backend


__all__ = ["Backend", "BackendUnavailable", "CapacityError", "Orphan", "ProvisionError", "Provisioned", "get_backend"]
