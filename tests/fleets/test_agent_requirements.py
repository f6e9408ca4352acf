"""agent/requirements.txt names what the agent imports beyond the standard library (agent/ and the
problems' reference code it runs) and nothing else (no Django, no dstack), with the root project's
bounds; a dstack VM installs it from the copy of agent/ it is shipped."""

from __future__ import annotations

import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from fleets.dstack import vm_service_config
from fleets.dstack_pools.agent_files import AGENT_IMPORTS, AGENT_REQUIREMENTS, agent_install_command, agent_package
from fleets.dstack_pools.config import vm_run_settings
from fleets.models import VMInstance, VMState
from tests.conftest import ROOT
from tests.fleets.conftest import TEST_IMAGE
from tests.test_dependencies import imported_packages


def agent_requirements() -> list[Requirement]:
    lines = (ROOT / "agent" / AGENT_REQUIREMENTS).read_text().splitlines()
    return [Requirement(line) for line in lines if line.strip() and not line.lstrip().startswith("#")]


def third_party_imports() -> set[str]:
    """Top-level modules imported anywhere in agent/ or problems/ that neither the standard library
    nor the agent itself provides."""
    files = [*(ROOT / "agent").rglob("*.py"), *(ROOT / "problems").rglob("*.py")]
    found: set[str] = set().union(*(imported_packages(path) for path in files))
    return {name for name in found if name not in sys.stdlib_module_names} - {"agent"}


def test_the_requirements_are_the_distributions_of_what_the_agent_imports() -> None:
    imports = third_party_imports()
    assert imports == set(AGENT_IMPORTS)  # the VM's quick check asks for exactly these
    providers = packages_distributions()
    needed = {canonicalize_name(dist) for name in imports for dist in providers.get(name, [name])}
    named = [canonicalize_name(requirement.name) for requirement in agent_requirements()]
    assert sorted(named) == sorted(needed)


def test_nothing_of_the_platform_is_in_the_agents_requirements() -> None:
    named = {canonicalize_name(requirement.name) for requirement in agent_requirements()}
    assert not {name for name in named if name.startswith(("django", "dstack", "psycopg", "uvicorn"))}


def test_the_bounds_are_the_root_projects() -> None:
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    bounds = {canonicalize_name(r.name): r.specifier for r in map(Requirement, root)}
    for requirement in agent_requirements():
        assert requirement.specifier, f"{requirement.name} has no bounds"
        assert bounds.get(canonicalize_name(requirement.name)) == requirement.specifier, requirement.name


@pytest.mark.django_db
def test_a_vm_installs_them_from_the_agent_it_is_shipped(make_dstack_pool: Any, settings: Any) -> None:
    settings.HIPJUDGE_DSTACK_IMAGE = TEST_IMAGE
    vm = VMInstance.objects.create(pool=make_dstack_pool(max_vms=1), state=VMState.PROVISIONING, token="t")
    run = vm_run_settings(vm)
    config = vm_service_config(run)
    install = agent_install_command(run.container_dir)
    serve = next(i for i, command in enumerate(config["commands"]) if command.startswith("exec python3 -m agent"))
    assert install in config["commands"][:serve]
    # The file the command names is in the copy of agent/ that `files:` puts in the container.
    shipped, target = config["files"][0].split(":")
    assert f"-r {target}/{AGENT_REQUIREMENTS}" in install
    assert Path(shipped) == agent_package()
    assert (agent_package() / AGENT_REQUIREMENTS).is_file()
    assert f"import {', '.join(AGENT_IMPORTS)}" in install
