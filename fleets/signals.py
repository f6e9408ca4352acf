"""Signals fleets sends so that other apps react without fleets knowing them.

- vm_state_changed(vm_id, pool_id, old, new): after every committed state change (billing accrues).
- vm_lost(vm_id, pool_id, job_ref, reason, no_capacity): a VM of pool `pool_id` died or failed
  while serving `job_ref`; the owner of that work (the submissions app) re-queues or fails it.
  `no_capacity` is True when the pool could not get the VM at all (none available, or not ready in
  time), so a retry on the same pool is pointless. Sent after commit.
"""

from django.dispatch import Signal

vm_state_changed = Signal()
vm_lost = Signal()
