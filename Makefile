# HIPJudge: two commands do everything on a fresh machine: `make run` and `make test`.
PY := .venv/bin/python

.PHONY: setup run test test-faults test-pg lint bench-agent

setup:
	@bash scripts/setup.sh

run: setup
	@bash scripts/run.sh

test: setup
	@bash scripts/test.sh

# Both also run by `make test` when PostgreSQL answers; a few minutes each.
test-pg: setup
	@bash scripts/test-pg.sh

test-faults: setup
	@bash scripts/test-faults.sh

lint: setup
	@bash scripts/lint.sh

bench-agent: setup
	$(PY) bench/agent.py
