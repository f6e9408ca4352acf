"""costsim's output: the table (text or JSON) and the HTML report with charts."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from bench.sim.engine import Run
from bench.sim.measure import Figures
from bench.sim.online_bound import online_bound_seconds
from bench.sim.optimum import offline_optimum_usd, offline_seconds
from bench.sim.specs import CloudSpec
from bench.sim.traces import ROOT, Trace
from billing.amounts import cost_of

COLUMNS = ("trace", "policy", "cost $", "/ lower", "/ opt", "idle", "colds", "wait p50", "wait p95", "result p95",
           "done", "lost", "CPU s")


def _duration(seconds: float) -> str:
    if math.isnan(seconds):
        return "-"
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min"


def table_rows(results: Sequence[Figures]) -> list[tuple[str, ...]]:
    return [(f.trace, f.policy, f"{f.cost_usd:.2f}", f"{f.cost_ratio:.2f}x", f"{f.optimum_ratio:.2f}x",
             f"{f.idle_share:.0%}", str(f.cold_starts), _duration(f.p50_wait_s), _duration(f.p95_wait_s),
             _duration(f.p95_result_s), str(f.done), str(f.rejected + f.unfinished), f"{f.cpu_s:.1f}")
            for f in results]


def markdown_table(results: Sequence[Figures]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(results)]
    return "\n".join(lines)


def print_table(results: Sequence[Figures], traces: Sequence[Trace], cloud: CloudSpec, *, json_out: bool) -> None:
    if json_out:
        print(json.dumps([f.as_json() for f in results], indent=1))
        return
    print(_cloud_line(cloud))
    for trace in traces:
        print(f"trace {trace.name}: {len(trace.arrivals)} jobs over {trace.span_s / 86400:.1f} days ({trace.about}); "
              f"{_optimum_line(trace, cloud)}")
    print(markdown_table(results))
    off = [f for f in results if abs(f.cost_usd - f.cloud_bill_usd) >= 0.01]
    if off:
        for f in off:
            print(f"MISMATCH {f.trace}/{f.policy}: ledger {f.cost_usd} USD, simulated cloud {f.cloud_bill_usd} USD")
    else:
        print(f"ledger = the simulated cloud's bill to the cent on all {len(results)} runs; "
              f"{sum(f.wall_s for f in results):.0f} s of wall time, {sum(f.cpu_s for f in results):.0f} s of CPU")



def _optimum_line(trace: Trace, cloud: CloudSpec) -> str:
    """The trace's own bounds: its busy time, and the offline optimum against it."""
    busy = Decimal(str(sum(a.duration_s for a in trace.arrivals)))
    lower, optimum = cost_of(busy, cloud.rate), offline_optimum_usd(trace, cloud)
    ratio = f"{optimum / lower:.2f}x" if lower > 0 else "-"
    return f"busy {lower:.2f} USD, offline optimum {optimum:.2f} USD ({ratio} busy){_online_bound_text(trace, cloud)}"


def _online_bound_text(trace: Trace, cloud: CloudSpec) -> str:
    """What a p95 wait of 60 s costs any online policy at least, against the offline optimum."""
    bound = online_bound_seconds(trace.rate_per_h, trace.span_s, cold_start_low_s=cloud.cold_start_s[0])
    optimum = offline_seconds(trace, cloud.cold_start_s)
    if bound is None or optimum <= 0:
        return ""
    return f"; p95 wait <= 60 s costs any online policy >= {bound / optimum:.2f}x the optimum (online_bound.py)"


CHART_JS = ROOT / "static" / "vendor" / "chartjs" / "chart.umd.min.js"
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>HIPJudge cost simulation</title>
<style>body{{font:14px system-ui,sans-serif;margin:2em;max-width:1100px}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}td:nth-child(-n+2){{text-align:left}}
.charts{{display:grid;grid-template-columns:1fr;gap:1em}}.charts div{{position:relative;height:240px}}</style>
<script>{chart_js}</script></head><body>
<h1>HIPJudge cost simulation</h1><p>{cloud}</p>{table}{sections}
<script>const DATA = {data};
for (const [id, spec] of Object.entries(DATA)) {{
  new Chart(document.getElementById(id), {{type: "line", data: {{datasets: spec.datasets}}, options: {{
    animation: false, parsing: false, normalized: true, maintainAspectRatio: false,
    elements: {{point: {{radius: 0}}}},
    plugins: {{title: {{display: true, text: spec.title}}, legend: {{position: "right", labels: {{boxWidth: 12}}}}}},
    scales: {{x: {{type: "linear", title: {{display: true, text: "hours"}}}}, y: {{beginAtZero: true}}}}}}}});
}}</script></body></html>
"""
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")


def _cloud_line(cloud: CloudSpec) -> str:
    return (f"Cold start {cloud.cold_start_s[0]:.0f}-{cloud.cold_start_s[1]:.0f} s, no capacity "
            f"{cloud.no_capacity_rate:.0%} of starts, {cloud.rate} USD per VM-hour, at most {cloud.max_vms} VMs, "
            f"credit {cloud.credit} USD ({cloud.credit_used_pct} % used before), seed {cloud.seed}.")


def _html_table(results: Sequence[Figures]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
                   for row in table_rows(results))
    return f"<table><tr>{head}</tr>{body}</table>"


def write_html(path: Path, runs: Sequence[tuple[Run, Figures]], cloud: CloudSpec) -> None:
    """One self-contained page: the table, then per trace the VMs up, the queue and the spend over
    time for every policy (Chart.js from the dashboard's vendored copy, inlined: no CDN)."""
    by_trace: dict[str, list[Run]] = {}
    for run, _ in runs:
        by_trace.setdefault(run.trace.name, []).append(run)
    data: dict[str, Any] = {}
    sections = []
    for t_index, (name, trace_runs) in enumerate(by_trace.items()):
        trace = trace_runs[0].trace
        ids = []
        for what, title in (("vms_up", "VMs up"), ("queued", "queue length"), ("spend_usd", "spend, USD")):
            chart_id = f"c{t_index}-{what}"
            ids.append(chart_id)
            data[chart_id] = {"title": f"{name}: {title}", "datasets": [
                {"label": run.policy.name, "borderColor": COLORS[i % len(COLORS)], "borderWidth": 1,
                 "stepped": what != "spend_usd",
                 "data": [{"x": round(s.at_s / 3600, 3), "y": getattr(s, what)} for s in run.samples]}
                for i, run in enumerate(trace_runs)]}
        canvases = "".join(f'<div><canvas id="{chart_id}"></canvas></div>' for chart_id in ids)
        sections.append(f"<h2>{html.escape(name)}</h2><p>{len(trace.arrivals)} jobs over {trace.span_s / 86400:.1f} "
                        f"days: {html.escape(trace.about)}</p><div class=charts>{canvases}</div>")
    page = PAGE.format(chart_js=CHART_JS.read_text(), cloud=html.escape(_cloud_line(cloud)),
                       table=_html_table([figure for _, figure in runs]), sections="".join(sections),
                       data=json.dumps(data).replace("</", "<\\/"))
    path.write_text(page)
