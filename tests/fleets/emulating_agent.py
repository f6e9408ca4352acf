"""Stands in for an agent with the emulated device (issue 11) until the real one reports it:
`health --workdir W --device host` prints the /v1/health report such an agent gives."""

import json
import sys

args = sys.argv[1:]
if args[:1] != ["health"] or "--workdir" not in args or args[args.index("--device") + 1] != "host":
    print(f"agent: unexpected command line {args}", file=sys.stderr)
    sys.exit(2)
print(json.dumps({"device": "host", "emulated": ["hip", "cuda", "fortran"],
                  "emulator": {"max_case_bytes": 256 * 1024 * 1024}}))
