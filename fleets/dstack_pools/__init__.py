"""Our pools on dstack (Django side): a pool's dstack settings (config), the agent files every VM
receives (agent_files), staff operations and the stray-run sweep (services), the admin's actions
and pages (admin), and the VM backend (backend). dstack itself is reached only through the
Django-free fleets.dstack package, where "fleet" means dstack's backend fleet.

Empty of imports on purpose: dstack's client takes seconds to load, and the admin imports this
package in every Django process.
"""
