"""The compile cache: compiled solutions by a hash of scope + source + flags + toolchain, bounded
in bytes, least recently used first out.

The scope is opaque and comes from the platform, one per user (an HMAC of the user id). Two users
never share an entry, so neither `COMPILE_RESULT.cached` nor the compile time tells one user that
another compiled the same source, and an entry poisoned by a kernel could only be served to its
own author. A job without a scope (`agent run` at a terminal) is compiled every time.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path

from agent.sandbox.resources import MIB

DEFAULT_MAX_BYTES = int(os.environ.get("HIPJUDGE_COMPILE_CACHE_MB", "1024")) * MIB
SCOPE_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,128}")
_ENTRY = re.compile(r"[0-9a-f]{64}\.so")


class CompileCache:
    def __init__(self, directory: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.directory = directory
        self.max_bytes = max_bytes

    @staticmethod
    def key(*, scope: str, language: str, version: str, flags: Sequence[str], source: str) -> str:
        return hashlib.sha256("\0".join([scope, language, version, *flags, source]).encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.so"

    def get(self, key: str, target: Path) -> bool:
        """Copy the entry to `target` and mark it used; False when there is none."""
        path = self._path(key)
        try:
            shutil.copyfile(path, target)
            os.utime(path)  # the mtime orders the entries for eviction
        except FileNotFoundError:
            return False
        return True

    def put(self, key: str, library: Path) -> None:
        """Store a copy of `library`, then evict the least recently used entries down to the cap.
        A library larger than the whole cache is not stored."""
        size = library.stat().st_size
        if size > self.max_bytes:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.directory / f".{uuid.uuid4().hex}.tmp"
        try:
            shutil.copyfile(library, tmp)
            os.replace(tmp, self._path(key))  # atomic: a concurrent reader never sees half a library
        finally:
            tmp.unlink(missing_ok=True)
        self.evict(keep=key)

    def entries(self) -> list[tuple[float, int, Path]]:
        """(last use, bytes, path) of every entry, oldest first."""
        found = []
        for path in self.directory.glob("*.so"):
            if not _ENTRY.fullmatch(path.name):
                continue
            try:
                info = path.stat()
            except FileNotFoundError:
                continue
            found.append((info.st_mtime, info.st_size, path))
        return sorted(found)

    def total_bytes(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def evict(self, keep: str | None = None) -> None:
        entries = self.entries()
        total = sum(size for _, size, _ in entries)
        for _, size, path in entries:
            if total <= self.max_bytes:
                return
            if keep is not None and path.name == f"{keep}.so":
                continue
            path.unlink(missing_ok=True)
            total -= size


def remove_legacy_entries(cache_dir: Path) -> None:
    """Builds an older agent kept, unscoped and unbounded, directly in the cache directory."""
    for path in cache_dir.glob("*.so"):
        if _ENTRY.fullmatch(path.name):
            path.unlink(missing_ok=True)
