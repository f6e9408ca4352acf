"""VM service runs: submit, read fresh by id, stop, list ours, and where their agent answers.

A run is always read again by id (`client.low.runs.get(project, run_id=...)`) before it is
classified: names are reused after deletion, `Run.refresh()` polls by name, and `runs.list`
caps job submissions. Nothing here caches a run.
"""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from dstack._internal.core.models.runs import Run

from fleets.dstack.client import DstackClient, enum_value
from fleets.dstack.errors import DstackRequestError, NoCapacityError, RunMissingError
from fleets.dstack.specs import VM_RUN_PREFIX, VmRunSettings, vm_service_configuration
from fleets.dstack.status import RunOutcome, classify_run

_LIST_PAGE = 100


@dataclass(frozen=True)
class SubmittedRun:
    id: str  # poll by this, never by name
    name: str
    status: str
    offers: int  # offers dstack saw at submission (0: it will most likely fail with no capacity)
    max_price: float | None
    base_url: str  # the agent's base URL through the server's service proxy


@dataclass(frozen=True)
class VmRun:
    id: str
    name: str
    status: str
    submitted_at: datetime
    fleet: str | None  # where dstack placed it, else the fleet it asked for (`fleets:`)
    termination_reason: str | None
    finished: bool


def service_base_url(server_url: str, project: str, run_name: str) -> str:
    """Where a gateway-less service answers: the dstack server's own proxy (dstack token needed)."""
    return f"{server_url.rstrip('/')}/proxy/services/{project}/{run_name}/"


def submit_vm_run(
    client: DstackClient, settings: VmRunSettings, *, require_offers: bool = False
) -> SubmittedRun:
    """Plan and submit the VM's service run (`reserve_ports=False`: a worker attaches nothing).

    Refuses when an unfinished run already has the name (applying would roll it in place).
    With `require_offers`, raises NoCapacityError instead of submitting when dstack sees no offer.
    """
    name = settings.run_name
    configuration = vm_service_configuration(settings)
    plan = client.call(
        f"plan VM run {name}", lambda: client.api.runs.get_run_plan(configuration=configuration)
    )
    current = plan.current_resource
    if current is not None and not current.status.is_finished():
        raise DstackRequestError(
            f"submit VM run {name}",
            f"run {name} already exists ({enum_value(current.status)}); stop it or reuse it",
        )
    offers = sum(jp.total_offers for jp in plan.job_plans)
    prices = [jp.max_price for jp in plan.job_plans if jp.max_price is not None]
    if require_offers and offers == 0:
        raise NoCapacityError(settings.fleet.gpu_name, settings.fleet.backends)
    submitted = client.call(
        f"submit VM run {name}", lambda: client.api.runs.apply_plan(plan, reserve_ports=False)
    )
    model: Run = submitted._run  # the public Run wraps the model without exposing it
    return SubmittedRun(
        id=str(model.id),
        name=name,
        status=enum_value(model.status),
        offers=offers,
        max_price=max(prices, default=None),
        base_url=service_base_url(client.server_url, client.project, name),
    )


def get_run(client: DstackClient, run_id: str | uuid.UUID) -> Run:
    """The run as dstack has it now (a new request every call)."""
    rid = uuid.UUID(str(run_id))
    return client.call(
        f"read run {rid}",
        lambda: client.low.runs.get(client.project, run_id=rid),
        not_found=lambda: RunMissingError(str(rid), client.project),
    )


def find_run(client: DstackClient, name: str) -> Run | None:
    """The latest run with this name, or None (to adopt a VM's run after a worker crash)."""
    try:
        return client.call(
            f"read run {name}",
            lambda: client.low.runs.get(client.project, run_name=name),
            not_found=lambda: RunMissingError(name, client.project),
        )
    except RunMissingError:
        return None


def poll_run(
    client: DstackClient, run_id: str | uuid.UUID, *, gpu: str | None = None, backends: Sequence[str] = ()
) -> RunOutcome:
    """Fetch the run by id and classify it."""
    return classify_run(get_run(client, run_id), gpu=gpu, backends=backends)


def wait_for_run(
    client: DstackClient,
    run_id: str | uuid.UUID,
    *,
    until: Callable[[RunOutcome], bool] = lambda o: o.final,
    timeout_s: float = 60.0,
    interval_s: float = 2.0,
    gpu: str | None = None,
    backends: Sequence[str] = (),
    sleep: Callable[[float], None] = time.sleep,
) -> RunOutcome:
    """Poll until `until(outcome)` or `timeout_s`; returns the last outcome either way."""
    deadline = time.monotonic() + timeout_s
    while True:
        outcome = poll_run(client, run_id, gpu=gpu, backends=backends)
        if until(outcome) or time.monotonic() + interval_s > deadline:
            return outcome
        sleep(interval_s)


def stop_run(client: DstackClient, name: str, *, abort: bool = False) -> None:
    """Ask dstack to stop the run (graceful unless `abort`); a finished or unknown name is a no-op."""
    client.call(f"stop run {name}", lambda: client.low.runs.stop(client.project, [name], abort=abort))


def list_vm_runs(
    client: DstackClient, *, active_only: bool = True, prefix: str = VM_RUN_PREFIX, max_pages: int = 10
) -> list[VmRun]:
    """Our runs (`hj-vm-*`) in the project, newest first, soft-deleted ones excluded."""
    result: list[VmRun] = []
    prev: Run | None = None
    for _ in range(max_pages):
        page = client.call("list runs", functools.partial(_list_page, client, active_only, prev))
        for run in page:
            name = run.run_spec.run_name or ""
            if run.deleted or not name.startswith(prefix):
                continue
            result.append(
                VmRun(
                    id=str(run.id),
                    name=name,
                    status=enum_value(run.status),
                    submitted_at=run.submitted_at,
                    fleet=run.fleet.name if run.fleet is not None else _requested_fleet(run),
                    termination_reason=run.termination_reason,
                    finished=run.status.is_finished(),
                )
            )
        if len(page) < _LIST_PAGE:
            break
        prev = page[-1]
    return result


def _list_page(client: DstackClient, active_only: bool, after: Run | None) -> list[Run]:
    return client.low.runs.list(
        client.project,
        None,
        only_active=active_only,
        limit=_LIST_PAGE,
        job_submissions_limit=1,
        prev_submitted_at=after.submitted_at if after is not None else None,
        prev_run_id=after.id if after is not None else None,
    )


def _requested_fleet(run: Run) -> str | None:
    fleets = getattr(run.run_spec.configuration, "fleets", None) or []
    if not fleets:
        return None
    ref = fleets[0]
    return ref if isinstance(ref, str) else ref.name
