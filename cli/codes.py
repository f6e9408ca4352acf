"""Exit codes: 0 the submission did what its mode asked (ACCEPTED / CHECKED / COMPILED), or the
command succeeded; 1 any other final status, or `rank` of a submission that is not on the
leaderboard; 2 usage or API errors (the server refused, with an HTTP error status); 3 `status` /
`rank` of a submission that has not finished, or `--wait` / `--watch` reached the deadline first;
4 the server is unreachable, broke the connection or did not answer in time; 5 the server answered
something the CLI cannot read (not JSON, the wrong shape, too large)."""

from __future__ import annotations

EXIT_OK, EXIT_VERDICT, EXIT_USAGE, EXIT_PENDING, EXIT_UNREACHABLE, EXIT_BAD_RESPONSE = 0, 1, 2, 3, 4, 5
SUCCESS = {"benchmark": "ACCEPTED", "check": "CHECKED", "compile": "COMPILED", "leaderboard": "ACCEPTED"}


def exit_code_for(status: str, mode: str) -> int:
    return EXIT_OK if status == SUCCESS.get(mode, "ACCEPTED") else EXIT_VERDICT
