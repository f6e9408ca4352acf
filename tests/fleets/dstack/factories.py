"""dstack's own model objects (Run, Job, JobSubmission, RunSpec, offers), built the way the server
serializes them: the contract tests and the in-process stand-in server both use these."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dstack._internal.core.models.backends.base import BackendType
from dstack._internal.core.models.instances import (
    Gpu,
    InstanceAvailability,
    InstanceOfferWithAvailability,
    InstanceType,
    Resources,
)
from dstack._internal.core.models.runs import (
    Job,
    JobProvisioningData,
    JobSpec,
    JobStatus,
    JobSubmission,
    Requirements,
    Run,
    RunFleet,
    RunSpec,
    RunStatus,
    ServiceSpec,
)

from fleets.dstack import FleetSettings, VmRunSettings, vm_service_configuration

IMAGE = "rocm/dev-ubuntu-22.04:6.2.4@sha256:" + "0123456789abcdef" * 4
MI300X_MIB = 192 * 1024


def now() -> datetime:
    return datetime.now(UTC)


def vm_settings(
    name: str = "pool", token: str = "agent-token", vm_id: str | None = None, agent_dir: Path | None = None
) -> VmRunSettings:
    return VmRunSettings(
        fleet=FleetSettings(name=name),
        vm_id=vm_id or str(uuid.uuid4()),
        image=IMAGE,
        agent_dir=agent_dir or Path("/opt/agent-src/agent"),
        agent_token=token,
    )


def run_spec(settings: VmRunSettings | None = None) -> RunSpec:
    settings = settings or vm_settings()
    configuration = vm_service_configuration(settings)
    return RunSpec(run_name=configuration.name, configuration=configuration)


def job_spec(spec: RunSpec) -> JobSpec:
    conf = spec.configuration
    return JobSpec(
        job_num=0,
        job_name=f"{spec.run_name}-0-0",
        commands=["/bin/sh", "-i", "-c", " && ".join(conf.commands)],
        env=conf.env.as_dict(),
        image_name=conf.image or "",
        requirements=Requirements(resources=conf.resources, spot=None),
        service_port=8000,
    )


def mi300x_offer(price: float = 1.99) -> InstanceOfferWithAvailability:
    resources = Resources(
        cpus=20,
        memory_mib=240 * 1024,
        gpus=[Gpu(name="MI300X", memory_mib=MI300X_MIB, vendor="amd")],
        spot=False,
    )
    return InstanceOfferWithAvailability(
        backend=BackendType.AMDDEVCLOUD,
        instance=InstanceType(name="gpu-mi300x1-192gb", resources=resources),
        region="atl1",
        price=price,
        availability=InstanceAvailability.AVAILABLE,
    )


def provisioning_data() -> JobProvisioningData:
    offer = mi300x_offer()
    return JobProvisioningData(
        backend=BackendType.AMDDEVCLOUD,
        instance_type=offer.instance,
        instance_id="droplet-1",
        hostname="203.0.113.7",
        region=offer.region,
        price=offer.price,
        username="root",
        dockerized=True,
    )


def submission(
    status: JobStatus | str = JobStatus.SUBMITTED,
    *,
    reason: str | None = None,
    exit_status: int | None = None,
    message: str | None = None,
    provisioned: bool = False,
) -> JobSubmission:
    at = now()
    status = JobStatus(status)
    return JobSubmission(
        id=uuid.uuid4(),
        submission_num=0,
        submitted_at=at,
        last_processed_at=at,
        finished_at=at if status.is_finished() else None,
        status=status,
        termination_reason=reason,
        termination_reason_message=message,
        exit_status=exit_status,
        job_provisioning_data=provisioning_data() if provisioned else None,
    )


def make_run(
    run_status: RunStatus | str = RunStatus.SUBMITTED,
    job_status: JobStatus | str | None = JobStatus.SUBMITTED,
    *,
    run_reason: str | None = None,
    job_reason: str | None = None,
    exit_status: int | None = None,
    job_message: str | None = None,
    spec: RunSpec | None = None,
    run_id: uuid.UUID | None = None,
    latest: bool = True,
    **extra: Any,
) -> Run:
    """A Run as `runs/get` returns it. `latest=False` leaves `latest_job_submission` unset, as
    some list answers do, so the classifier must find the submission in `jobs`."""
    spec = spec or run_spec()
    jobs: list[Job] = []
    sub = None
    if job_status is not None:
        sub = submission(
            job_status,
            reason=job_reason,
            exit_status=exit_status,
            message=job_message,
            provisioned=JobStatus(job_status) not in (JobStatus.SUBMITTED,),
        )
        jobs = [Job(job_spec=job_spec(spec), job_submissions=[sub])]
    at = now()
    project = extra.pop("project_name", "main")
    return Run(
        id=run_id or uuid.uuid4(),
        project_name=project,
        user="admin",
        fleet=RunFleet(id=uuid.uuid4(), name=_fleet_name(spec)),
        submitted_at=at,
        last_processed_at=at,
        status=RunStatus(run_status),
        termination_reason=run_reason,
        run_spec=spec,
        jobs=jobs,
        latest_job_submission=sub if latest else None,
        service=ServiceSpec(url=f"/proxy/services/{project}/{spec.run_name}/"),
        **extra,
    )


def _fleet_name(spec: RunSpec) -> str:
    ref = (spec.configuration.fleets or ["pool"])[0]
    return ref if isinstance(ref, str) else ref.name
