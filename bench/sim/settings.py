"""Settings of a costsim process: the project's own, with the platform's database added as `history`
(what --from-db reads) while `default` is the simulator's throwaway SQLite file."""

import os

import dj_database_url

from config.settings import *  # noqa: F403
from config.settings import DATABASES

_history = os.environ.get("HIPJUDGE_COSTSIM_HISTORY_URL")
if _history:
    DATABASES["history"] = dict(dj_database_url.parse(_history))
