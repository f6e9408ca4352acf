"""Stands in for an agent that cannot start (e.g. no sandbox): says why and exits."""

import sys

print("agent: refusing to start: no sandbox available (install bubblewrap)", flush=True)
sys.exit(3)
