"""`hipjudge`: the command-line client of the HIPJudge REST API (standard library only)."""
