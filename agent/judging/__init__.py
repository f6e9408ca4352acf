"""Judging: a job from request to verdict (compile, the tests, the benchmark, the ranked pass), the
checks on outputs and times, and the job runner that drives it."""
