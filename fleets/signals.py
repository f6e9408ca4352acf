"""Signals fleets sends so that other apps react without fleets knowing them.

- vm_state_changed(vm_id, fleet_id, old, new): after every committed state change (billing accrues).
- vm_lost(vm_id, job_ref, reason): a VM died or failed while serving `job_ref`; the owner of that
  work (the submissions app) re-queues or fails it. Sent after commit.
"""

from django.dispatch import Signal

vm_state_changed = Signal()
vm_lost = Signal()
