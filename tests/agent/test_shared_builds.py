"""The agent's own builds (the emulator's runtime, the eviction helper) in a folder that agents of one
machine share (agent.config.BUILD_DIR_ENV): built once, whatever each agent's workdir."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import BUILD_DIR_ENV, build_config, health_info
from agent.emulator.build import gxx_version


def test_without_a_shared_folder_the_builds_go_in_the_workdirs_cache(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BUILD_DIR_ENV, raising=False)
    config = build_config(workdir=tmp_path / "agent", device="host", allow_insecure=True)
    assert config.build_dir == config.cache_dir == (tmp_path / "agent" / "cache").resolve()


@pytest.mark.slow  # builds the emulator's runtime
@pytest.mark.skipif(gxx_version() is None, reason="g++ builds the emulator")
def test_agents_with_their_own_workdirs_use_one_build_of_the_emulator(tmp_path: Path, shared_agent_builds: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BUILD_DIR_ENV, str(shared_agent_builds))
    configs = [build_config(workdir=tmp_path / name, device="host", allow_insecure=True) for name in ("a", "b")]
    for config in configs:
        assert config.build_dir == shared_agent_builds.resolve()
        assert config.build_dir in config.sandbox.hidden  # no child sees it, like the workdir
        assert "hip" in health_info(config)["emulated"]  # the runtime is there and loads
        assert not list(config.cache_dir.glob("libhjemu-*")), "an agent built the emulator in its own workdir"
    assert len(list(shared_agent_builds.glob("libhjemu-*.so"))) == 1
