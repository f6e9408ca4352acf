# HIPJudge: two commands do everything on a fresh machine: `make run` and `make test`.
PY := .venv/bin/python

.PHONY: setup run test test-faults lint bench-agent

setup:
	@bash scripts/setup.sh

run: setup
	@bash scripts/run.sh

test: setup
	@bash scripts/test.sh

# Also run by `make test` when PostgreSQL answers; a few minutes.
test-faults: setup
	@bash scripts/test-faults.sh

lint: setup
	@bash scripts/lint.sh

bench-agent: setup
	$(PY) bench/agent.py
