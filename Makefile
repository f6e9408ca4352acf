# HIPJudge: two commands do everything on a fresh machine: `make run` and `make test`.
# `make test-quick` is the unit tier for the edit-test loop (no live servers, browsers or slow tests);
# `make test` stays the whole suite, the one CI (.ci/run) and merges run.
PY := .venv/bin/python

.PHONY: setup run test test-quick test-faults test-pg lint bench-agent

setup:
	@bash scripts/setup.sh

run: setup
	@bash scripts/run.sh

test: setup
	@bash scripts/test.sh

# The tests not marked integration, browser, contract, faults or slow (scripts/test-quick.sh).
test-quick: setup
	@bash scripts/test-quick.sh

# Both also run by `make test` when PostgreSQL answers; a few minutes each.
test-pg: setup
	@bash scripts/test-pg.sh

test-faults: setup
	@bash scripts/test-faults.sh

lint: setup
	@bash scripts/lint.sh

bench-agent: setup
	$(PY) bench/agent.py
