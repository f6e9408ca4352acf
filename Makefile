# HIPJudge: two commands do everything on a fresh machine: `make run` and `make test`.
PY := .venv/bin/python

.PHONY: setup run test lint bench-agent

setup:
	@bash scripts/setup.sh

run: setup
	@bash scripts/run.sh

test: setup
	@bash scripts/test.sh

lint: setup
	.venv/bin/ruff check .
	.venv/bin/mypy agent cli config fleets submissions billing $(wildcard web)

bench-agent: setup
	$(PY) bench/agent.py
