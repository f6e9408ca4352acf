"""The cost simulator's parts (bench/costsim.py is its command line): traces of arrivals, the engine
that replays them through the platform's own queue, VM, reaper and billing code on a simulated
clock, and the report (table, JSON, HTML charts)."""
