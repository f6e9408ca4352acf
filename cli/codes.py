"""Exit codes: 0 the submission did what its mode asked (ACCEPTED / CHECKED / COMPILED), or the
command succeeded; 1 any other final status, or `rank` of a submission that is not on the
leaderboard; 2 usage or API errors; 3 `status` / `rank` of a submission that has not finished;
4 the server is unreachable."""

from __future__ import annotations

EXIT_OK, EXIT_VERDICT, EXIT_USAGE, EXIT_PENDING, EXIT_UNREACHABLE = 0, 1, 2, 3, 4
SUCCESS = {"benchmark": "ACCEPTED", "check": "CHECKED", "compile": "COMPILED", "leaderboard": "ACCEPTED"}


def exit_code_for(status: str, mode: str) -> int:
    return EXIT_OK if status == SUCCESS.get(mode, "ACCEPTED") else EXIT_VERDICT
