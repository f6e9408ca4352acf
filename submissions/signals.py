"""What submissions tells the apps built on it (the leaderboard), which connect their receivers in
their own AppConfig.ready: submissions imports none of them."""

from django.dispatch import Signal

# A submission's current judging ended: sent by judging_close_locked with the submission's row
# locked and its final status set on it but not yet saved (submission=, ranked= the passed
# RankedResult or None), inside the transaction that saves it. Receivers save their own rows and
# change nothing on `submission`.
judging_closed = Signal()

# Judgings ended and their VMs were given back (submission_ids=, None for every submission): sent by
# the runner after the release and by the sweep, in case a release's was lost. Each receiver returns
# how many follow-ups it queued (the sweep reports their sum).
judgings_released = Signal()
