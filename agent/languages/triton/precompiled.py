"""The run child's side of Triton on a GPU agent: Triton reads its kernels and its launcher stub from
the read-only cache the compile phase wrote (agent.languages.triton.precompile), and compiles
nothing. The run sandbox refuses new processes, so a launch the compile did not foresee must end as
a clear error naming the kernel, not as a refused `gcc` or `ptxas` deep inside Triton.

`use_precompiled` is called before Triton's driver is made: Triton's cache manager becomes
PrecompiledCache, the launcher stub's runtime library and (NVIDIA) ptxas's version are the ones the
compile phase keyed them with (Triton would otherwise ask `ldconfig`, `hipconfig` and `ptxas`), and
so is the platform's name in the launcher's key (Triton's asks `file`).
"""

from __future__ import annotations

import json
import os
import sysconfig
from pathlib import Path
from typing import Any

from agent.languages.triton.precompile import MANIFEST


class NotPrecompiled(RuntimeError):
    """What Triton needed is not in the precompiled cache; the message names it."""


def read_manifest(cache_dir: str | None) -> dict[str, Any] | None:
    """The compile phase's manifest in the cache folder; None when there is no precompiled cache."""
    if not cache_dir:
        return None
    try:
        manifest = json.loads((Path(cache_dir) / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("backend") in ("hip", "cuda") else None


def use_precompiled(manifest: dict[str, Any]) -> None:
    """Point Triton at the precompiled cache, read-only, before its driver is made."""
    from triton import knobs

    from agent.languages.triton.precompile_child import pin_platform_key, set_hip_library

    pin_platform_key()
    if manifest["backend"] == "hip":
        set_hip_library(str(manifest["runtime_library"]))
    else:
        os.environ["TRITON_LIBCUDA_PATH"] = str(manifest["runtime_library"])
        os.environ["TRITON_MOCK_PTX_VERSION"] = str(manifest.get("ptxas_version", ""))
    knobs.cache.manager_class = PrecompiledCache


class PrecompiledCache:
    """Triton's cache manager (its CacheManager's methods; Triton only calls them) over the
    read-only folder: what is there is found (a group's files by their names in the key's folder,
    wherever the compile box had them), a miss raises NotPrecompiled, and nothing is ever written.
    Importable without Triton."""

    def __init__(self, key: str, override: bool = False, dump: bool = False) -> None:
        self.key = key
        self.cache_dir = os.path.join(os.environ.get("TRITON_CACHE_DIR", ""), key)

    def get_file(self, filename: str) -> str | None:
        path = os.path.join(self.cache_dir, filename)
        if os.path.isfile(path):
            return path
        if filename.endswith(sysconfig.get_config_var("EXT_SUFFIX") or ".so"):
            raise NotPrecompiled(f"Triton's launcher ({filename.split('.')[0]}) was not built for this GPU by the "
                                 "compile phase (a judge error)")
        raise NotPrecompiled(f"{filename} was not precompiled")

    def get_group(self, filename: str) -> dict[str, str] | None:
        group = lookup_group(self.cache_dir, filename)
        if group is None:
            raise NotPrecompiled(f"kernel not precompiled for this shape: {filename.removesuffix('.json')} (the "
                                 "compile phase ran the launcher at every case's sizes; a launch that depends on "
                                 "anything else, such as the inputs' values, compiles a kernel it never saw)")
        return group

    def put(self, data: Any, filename: str, binary: bool = True) -> str:
        raise NotPrecompiled(f"Triton tried to store {filename}: nothing is compiled while the kernels run")

    def put_group(self, filename: str, group: dict[str, str]) -> str:
        raise NotPrecompiled(f"Triton tried to store {filename}: nothing is compiled while the kernels run")


def lookup_group(cache_dir: str, filename: str) -> dict[str, str] | None:
    """A kernel's files (Triton's `__grp__` record) in the key's folder `cache_dir`, each by its
    name there; None when the record or one of its files is missing. Reads files only."""
    try:
        record = json.loads(Path(cache_dir, f"__grp__{filename}").read_text())
    except (OSError, ValueError):
        return None
    children = record.get("child_paths") if isinstance(record, dict) else None
    if not isinstance(children, dict):
        return None
    found = {}
    for child, recorded in children.items():
        path = os.path.join(cache_dir, os.path.basename(str(recorded)))
        if not os.path.isfile(path):
            return None
        found[str(child)] = path
    return found
