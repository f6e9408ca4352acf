"""Billing: the ledger, credit grants and budget alerts arrive with the billing issue.

The app exists from the start so that its migrations and INSTALLED_APPS entry are stable; it will
listen to fleets.signals.vm_state_changed to accrue VM time.
"""
