"""Signals limits sends so that the owner of the work reacts, not limits.

- user_suspended(user_id, by): after a suspension is committed; `by` is the staff user who suspended.
  The submissions app cancels what the user has queued or running.
"""

from django.dispatch import Signal

user_suspended = Signal()
