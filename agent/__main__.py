"""`python -m agent ...`: see agent.cli."""

import sys

from agent.cli import main

sys.exit(main())
