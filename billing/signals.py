"""Signals billing sends so that other apps react without billing driving them.

- credit_granted(grant_id): after a new credit grant is committed; paid pools may take work again
  (the submissions app dispatches their queues).
"""

from django.dispatch import Signal

credit_granted = Signal()
