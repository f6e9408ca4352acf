// Cost dashboard charts (Chart.js, served from static/vendor/chartjs). Data: #dashboard-data.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("dashboard-data").textContent);
  const COLORS = {
    provisioning: "#8e6cc9", busy: "#2e7d32", idle: "#f9a825", draining: "#607d8b", correction: "#c62828",
    fault: "#ad1457",
    spend: "#1565c0", credit: "#263238", alert: "#ef6c00", projection: "#90a4ae", cold: "#1976d2", warm: "#66bb6a",
  };
  const usd = (v) => "$" + Number(v).toLocaleString("en-US", {minimumFractionDigits: 2, maximumFractionDigits: 2});
  const short = (iso) => iso.slice(5);  // MM-DD
  Chart.defaults.animation = false;  // final frame at once: screenshots and slow machines
  Chart.defaults.font.size = 13;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.plugins.legend.labels.boxWidth = 14;
  const moneyAxis = {beginAtZero: true, ticks: {callback: (v) => usd(v)}};
  const moneyTooltip = {callbacks: {label: (c) => `${c.dataset.label}: ${usd(c.parsed.y ?? c.parsed.x)}`}};

  // 1. Cumulative spend against the credit, the alert line, and the projection to exhaustion.
  const future = data.projection.days.slice(1);
  const labels = data.days.concat(future);
  const pad = (values, before, after) => Array(before).fill(null).concat(values, Array(after).fill(null));
  const flat = (v) => labels.map(() => v);
  const budgetSets = [
    {label: "Spent (cumulative)", data: pad(data.cumulative, 0, future.length), borderColor: COLORS.spend,
     backgroundColor: "rgba(21,101,192,0.12)", fill: true, pointRadius: 0, borderWidth: 3},
  ];
  if (data.projection.values.length) {
    budgetSets.push({label: "Projection at the current burn rate", data: pad(data.projection.values, data.days.length - 1, 0),
                     borderColor: COLORS.projection, borderDash: [6, 4], pointRadius: 0, borderWidth: 2});
  }
  if (data.credit > 0) {
    budgetSets.push({label: `Credit ${usd(data.credit)}`, data: flat(data.credit), borderColor: COLORS.credit,
                     pointRadius: 0, borderWidth: 2});
    budgetSets.push({label: `${data.alert_pct} % alert ${usd(data.alert_line)}`, data: flat(data.alert_line),
                     borderColor: COLORS.alert, borderDash: [4, 4], pointRadius: 0, borderWidth: 2});
  }
  new Chart(document.getElementById("chart-budget"), {
    type: "line", data: {labels: labels.map(short), datasets: budgetSets},
    // Scaled by the credit and the spend (data.y_max); the projection stops at the top.
    options: {scales: {y: {...moneyAxis, max: data.y_max ?? undefined}, x: {ticks: {maxTicksLimit: 16}}},
              plugins: {tooltip: moneyTooltip},
              interaction: {mode: "index", intersect: false}},
  });

  // 2. Daily spend by phase, stacked.
  const phases = ["busy", "idle", "provisioning", "draining", "correction"];
  new Chart(document.getElementById("chart-daily"), {
    type: "bar",
    data: {labels: data.days.map(short), datasets: phases.map((p) => ({
      label: p, data: data.daily[p], backgroundColor: COLORS[p], stack: "spend"}))},
    options: {scales: {x: {stacked: true}, y: {...moneyAxis, stacked: true}}, plugins: {tooltip: moneyTooltip}},
  });

  // 2b. What the platform's own faults cost it, per day (inside the phases above, booked to nobody).
  new Chart(document.getElementById("chart-faults"), {
    type: "bar",
    data: {labels: data.days.map(short), datasets: [
      {label: "Platform faults", data: data.faults, backgroundColor: COLORS.fault}]},
    options: {scales: {y: moneyAxis}, plugins: {legend: {display: false}, tooltip: moneyTooltip}},
  });

  // 3. Top users.
  new Chart(document.getElementById("chart-users"), {
    type: "bar",
    data: {labels: data.users.labels, datasets: [{label: "Cost", data: data.users.cost, backgroundColor: COLORS.busy}]},
    options: {indexAxis: "y", scales: {x: moneyAxis}, plugins: {legend: {display: false}, tooltip: moneyTooltip}},
  });

  // 4. Per pool, with the idle share.
  new Chart(document.getElementById("chart-pools"), {
    type: "bar",
    data: {labels: data.pools.labels, datasets: [
      {label: "Working", data: data.pools.cost.map((c, i) => Math.max(c - data.pools.idle[i], 0)),
       backgroundColor: COLORS.busy, stack: "pool"},
      {label: "Idle", data: data.pools.idle, backgroundColor: COLORS.idle, stack: "pool"}]},
    options: {scales: {x: {stacked: true}, y: {...moneyAxis, stacked: true}}, plugins: {tooltip: moneyTooltip}},
  });

  // 5. Cold starts against warm reuses.
  new Chart(document.getElementById("chart-starts"), {
    type: "bar",
    data: {labels: data.days.map(short), datasets: [
      {label: "Cold starts", data: data.starts.cold, backgroundColor: COLORS.cold, stack: "s"},
      {label: "Warm reuses", data: data.starts.warm, backgroundColor: COLORS.warm, stack: "s"}]},
    options: {scales: {x: {stacked: true}, y: {stacked: true, beginAtZero: true, ticks: {precision: 0}}}},
  });
})();
