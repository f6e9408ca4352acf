"""The fault test's verdicts, read from the database and the agents' own logs."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from billing.amounts import cost_of, seconds_between
from billing.models import LedgerEntry, Phase, Source
from fleets.models import ENDED_VM_STATES, LIVE_VM_STATES, VMInstance
from submissions.models import SubmissionEvent
from tests.integration.conftest import pids_with

CENT = Decimal("0.01")
JOB_IN_LOG = re.compile(r"/v1/jobs/([0-9a-f-]{36})-(\d+)")


def vm_holdings() -> dict[str, list[tuple[datetime, datetime, str, int]]]:
    """VM id -> the holdings (start, end, submission, attempt) the events tell: a holding starts with
    the VM event of a dispatch and ends with that attempt's RESULT or REQUEUED event."""
    holdings: dict[str, list[tuple[datetime, datetime, str, int]]] = defaultdict(list)
    opened: dict[str, tuple[str, datetime, int]] = {}
    events = SubmissionEvent.objects.filter(type__in=("VM", "RESULT", "REQUEUED")).order_by("submission_id", "seq")
    for submission_id, kind, payload, at in events.values_list("submission_id", "type", "payload", "recorded_at"):
        sid = str(submission_id)
        if kind == "VM":
            assert sid not in opened, f"{sid} dispatched again while it held VM {opened[sid][0]}"
            opened[sid] = (payload["vm"], at, int(payload["attempt"]))
        elif sid in opened:
            vm, start, attempt = opened.pop(sid)
            holdings[vm].append((start, at, sid, attempt))
    assert not opened, f"holdings never ended: {opened}"
    return holdings


def vm_holdings_overlap() -> list[str]:
    """Every pair of holdings of one VM that overlap in time (must be none)."""
    problems = []
    for vm, spans in vm_holdings().items():
        spans.sort()
        for (_, end, first, _), (start, _, second, _) in zip(spans, spans[1:], strict=False):
            if start < end:
                problems.append(f"VM {vm}: {second} dispatched at {start} while {first} held it until {end}")
    return problems


def agent_jobs_match(agent_root: Path) -> list[str]:
    """Every job an agent was asked about (its own request log) is an attempt dispatched to its VM."""
    served = {(vm, sid, attempt) for vm, spans in vm_holdings().items() for _, _, sid, attempt in spans}
    problems = []
    for log in agent_root.glob("*/vm-*/agent.log"):
        vm = log.parent.name.removeprefix("vm-")
        for sid, attempt in set(JOB_IN_LOG.findall(log.read_text(errors="replace"))):
            if (vm, sid, int(attempt)) not in served:
                problems.append(f"agent of VM {vm} ran job {sid}-{attempt}, not dispatched to it")
    return problems


def ledger_matches_vm_time() -> list[str]:
    """Per ended VM: its accrual entries tile its life from creation to its end without a gap or an
    overlap, each at the VM's rate, their sum is its life times the rate to the cent, and busy time
    is charged only to submissions that VM served."""
    served = {(vm, sid) for vm, spans in vm_holdings().items() for _, _, sid, _ in spans}
    problems = []
    for vm in VMInstance.objects.select_related("pool"):
        if vm.state not in ENDED_VM_STATES:
            problems.append(f"VM {vm.pk} is still {vm.state}")
            continue
        entries = list(LedgerEntry.objects.filter(vm=vm, source=Source.ACCRUAL).order_by("period_start"))
        cursor = vm.created_at
        for entry in entries:
            if entry.period_start != cursor:
                problems.append(f"VM {vm.pk}: booked from {entry.period_start}, expected {cursor}")
            if entry.rate_per_hour != vm.pool.hourly_rate:
                problems.append(f"VM {vm.pk}: rate {entry.rate_per_hour}")
            charged = str(entry.submission_id)
            if entry.phase == Phase.BUSY and entry.submission_id and (str(vm.pk), charged) not in served:
                problems.append(f"VM {vm.pk}: busy time charged to {entry.submission_id}, which it never served")
            cursor = entry.period_end
        if cursor != vm.state_changed_at:
            problems.append(f"VM {vm.pk}: booked until {cursor}, it ended {vm.state_changed_at}")
        expected = cost_of(seconds_between(vm.created_at, vm.state_changed_at), vm.pool.hourly_rate)
        booked = sum((e.amount for e in entries), Decimal(0))
        if abs(booked - expected) >= CENT:
            problems.append(f"VM {vm.pk}: booked {booked} USD, its life costs {expected} USD")
    return problems


def platform_fault_usd() -> Decimal:
    """What the platform booked to itself for its own faults (billing.faults)."""
    entries = LedgerEntry.objects.filter(source=Source.PLATFORM_FAULT, user__isnull=True)
    return sum((e.amount for e in entries), Decimal(0))


def platform_fault_seconds() -> Decimal:
    entries = LedgerEntry.objects.filter(source=Source.PLATFORM_FAULT, user__isnull=True)
    return sum((e.seconds for e in entries), Decimal(0))


def charged_on_several_vms() -> dict[str, int]:
    """Submissions whose user still pays (net of the platform's credits) for time on more than one VM:
    one attempt is charged, on one VM (must be none)."""
    net: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    for sid, vm, amount in LedgerEntry.objects.filter(user__isnull=False, submission__isnull=False).values_list(
            "submission_id", "vm_id", "amount"):
        net[(str(sid), str(vm))] += amount
    vms: Counter = Counter(sid for (sid, _), amount in net.items() if amount > 0)
    return {sid: n for sid, n in vms.items() if n > 1}


def orphan_agents(agent_root: Path) -> list[str]:
    """Command lines of agent processes whose VM is not live (must be none)."""
    live = {str(pk) for pk in VMInstance.objects.filter(state__in=LIVE_VM_STATES).values_list("pk", flat=True)}
    orphans = []
    for pid in pids_with(str(agent_root)):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # exited meanwhile
        if not any(vm in cmdline for vm in live):
            orphans.append(cmdline)
    return orphans


def scan_process_logs(base: Path, secrets: list[str]) -> tuple[list[str], Counter]:
    """The web, worker and agent logs under `base`: lines that contain a secret (a token, the mark in
    the sources), and the ERROR and CRITICAL lines of the JSON logs counted by logger and message."""
    leaks, errors = [], Counter()
    for log in [*base.glob("*.log"), *base.glob("agents/*/vm-*/agent.log")]:
        for line in log.read_text(errors="replace").splitlines():
            leaks.extend(f"{log.name}: {line[:200]}" for secret in secrets if secret in line)
            if line.startswith("{"):
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("level") in ("ERROR", "CRITICAL"):
                    errors[(entry.get("logger", "?"), re.sub(r"[0-9a-f-]{36}", "<id>", entry["message"])[:100])] += 1
    return leaks, errors
