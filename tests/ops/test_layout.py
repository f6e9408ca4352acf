"""The production layout as files: Dockerfiles, Procfile and scripts/serve.sh refer to what exists.

There is no Docker engine here, so the images are not built; these tests parse the files instead.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from fleets.dstack.specs import _PINNED_IMAGE
from tests.conftest import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text()
AGENT_DOCKERFILE = (ROOT / "docker" / "agent-rocm.Dockerfile").read_text()
SANDBOX_DOCKERFILE = (ROOT / "docker" / "sandbox.Dockerfile").read_text()


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in joined.splitlines() if line.strip()]


def test_the_platform_image_copies_files_that_exist_and_every_package() -> None:
    copies = [args.split() for kind, args in instructions(DOCKERFILE) if kind == "COPY" and "--from" not in args]
    sources = [source for args in copies for source in args[:-1]]
    assert not [source for source in sources if not (ROOT / source).exists()]
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    for package in (name.rstrip("*") for name in packages["include"]):
        assert package in sources, f"the Dockerfile does not copy the package {package}"
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert not [source for source in sources if source in ignored]


def test_the_platform_image_runs_serve_sh() -> None:
    entry = dict(instructions(DOCKERFILE))["ENTRYPOINT"]
    assert entry == '["scripts/serve.sh"]'
    assert os.access(ROOT / "scripts" / "serve.sh", os.X_OK)


def test_the_agent_image_installs_what_the_agent_needs() -> None:
    steps = instructions(AGENT_DOCKERFILE)
    assert ("FROM", "${ROCM_IMAGE}") in steps
    installed = " ".join(args for kind, args in steps if kind == "RUN")
    for package in ("python3", "python3-dev", "python3-numpy", "python3-yaml", "bubblewrap", "g++"):
        assert f" {package} " in f" {installed} ", package
    assert not any(kind == "COPY" for kind, _ in steps)  # the agent's code comes with each run (files:)


def test_the_sandbox_image_has_what_tritons_launcher_build_needs() -> None:
    """Triton compiles its launcher stub with gcc against Python's headers (Python.h) in the sandbox."""
    installed = " ".join(args for kind, args in instructions(SANDBOX_DOCKERFILE) if kind == "RUN")
    for package in ("python3", "python3-dev", "python3-numpy", "g++"):
        assert f" {package} " in f" {installed} ", package


def pin_check(image: str) -> subprocess.CompletedProcess:
    """The agent image's own check of its base, run as `docker build` would run it."""
    steps = instructions(AGENT_DOCKERFILE)
    check = next(args for kind, args in steps if kind == "RUN" and "ROCM_IMAGE" in args)
    return subprocess.run(["sh", "-c", check], env={"PATH": os.environ["PATH"], "ROCM_IMAGE": image},
                          capture_output=True, text=True, timeout=10)


DIGEST = "sha256:" + "3f" * 32


@pytest.mark.parametrize(("image", "pinned"), [
    (f"rocm/dev-ubuntu-24.04:6.2.4@{DIGEST}", True),
    ("rocm/dev-ubuntu-24.04:6.2.4", False),  # a tag moves
    (f"rocm/dev-ubuntu-24.04@{DIGEST}", False),  # a digest alone says nothing to the reader
    ("rocm/dev-ubuntu-24.04:6.2.4@sha256:" + "0" * 64, False),  # a placeholder
    ("", False),
])
def test_the_agent_image_is_built_only_on_a_pinned_base(image: str, pinned: bool) -> None:
    args = [args for kind, args in instructions(AGENT_DOCKERFILE) if kind == "ARG"]
    assert args.count("ROCM_IMAGE") == 2  # no default digest to forget: the build is given one
    result = pin_check(image)
    assert (result.returncode == 0) == pinned, result.stderr
    if not pinned:
        assert "pin the ROCm base as name:tag@sha256:<digest>" in result.stderr
    assert _PINNED_IMAGE.match(image) is not None or not pinned  # the rule fleets.dstack applies to pools


def test_every_procfile_role_is_a_serve_sh_role() -> None:
    roles = dict(line.split(": ", 1) for line in (ROOT / "Procfile").read_text().splitlines())
    assert roles == {role: f"scripts/serve.sh {role}" for role in ("release", "web", "worker")}


def serve(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "REDIS_URL", "DJANGO_"))}
    return subprocess.run(["bash", str(ROOT / "scripts" / "serve.sh"), *args], env={**clean, **env},
                          capture_output=True, text=True, timeout=60)


def test_serve_sh_refuses_to_start_without_the_shared_settings() -> None:
    assert serve().returncode == 2
    assert "usage" in serve().stderr
    result = serve("web")
    assert result.returncode == 2
    assert "DATABASE_URL REDIS_URL DJANGO_SECRET_KEY DJANGO_ALLOWED_HOSTS" in result.stderr


@pytest.mark.parametrize("role", ["web", "worker", "release"])
def test_serve_sh_refuses_sqlite(role: str) -> None:
    result = serve(role, DATABASE_URL="sqlite:///x.db", REDIS_URL="redis://h:6379/0", DJANGO_SECRET_KEY="k",
                   DJANGO_ALLOWED_HOSTS="example.org")
    assert result.returncode == 2
    assert "must be PostgreSQL" in result.stderr


def test_serve_sh_release_sets_up_the_schedules_when_a_problem_fails_to_load_then_fails(tmp_path: Path) -> None:
    # A stand-in for manage.py: it notes each command and fails load_problems, as a bad bundle does.
    log = tmp_path / "commands"
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\necho "$2" >> {log}\n[ "$2" != load_problems ]\n')
    python.chmod(0o755)
    result = serve("release", DATABASE_URL="postgres://u@h/db", DJANGO_SECRET_KEY="k", HIPJUDGE_PYTHON=str(python))
    assert log.read_text().split() == ["migrate", "collectstatic", "load_problems", "setup_schedules"]
    assert result.returncode != 0
    assert "some problems were not loaded" in result.stderr


@pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed")
def test_the_documented_proxy_configuration_is_valid_nginx(tmp_path: Path) -> None:
    """docs/operations.md: the proxy's configuration as given, checked by `nginx -t` (listening on
    free loopback ports without TLS files, the one change needed to check it here)."""
    snippet = re.search(r"```nginx\n(.*?)```", (ROOT / "docs" / "operations.md").read_text(), re.S)
    assert snippet is not None
    text = snippet.group(1)
    assert "proxy_buffering off;" in text
    assert "client_header_timeout" in text
    assert "keepalive_timeout 4s;" in text
    text = re.sub(r"^\s*ssl_certificate.*$", "", text, flags=re.M)
    text = text.replace("listen 443 ssl http2;", "listen 127.0.0.1:18443;")
    text = text.replace("listen 80;", "listen 127.0.0.1:18080;")
    conf = tmp_path / "nginx.conf"
    conf.write_text(f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{}}\n"
                    f"http {{\naccess_log off;\nclient_body_temp_path {tmp_path}/body;\n{text}\n}}\n")
    result = subprocess.run(["nginx", "-t", "-e", str(tmp_path / "error.log"), "-p", str(tmp_path), "-c", str(conf)],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
