// Live submission page. The server renders every state (the page works without this file and
// refreshes itself); here the SSE stream only says *when* something changed, and the changing
// part is fetched again from the server, so the live view and a reload always agree.
// EventSource reconnects by itself and sends Last-Event-ID, so a lost connection resumes.
(function () {
  "use strict";
  const live = document.getElementById("live");
  if (!live) return;
  const announcer = document.getElementById("live-announcer");
  let source = null;
  let pending = null;
  let inflight = false;
  let again = false;
  let poller = null;

  function state() { return live.querySelector(".live-state"); }
  function terminal() { const s = state(); return !s || s.dataset.terminal === "1"; }
  function setConnection(text) {
    const el = live.querySelector(".connection");
    if (el) el.textContent = text;
  }

  // Count seconds up on "(N s so far)" without asking the server.
  const loadedAt = Date.now();
  setInterval(function () {
    live.querySelectorAll("[data-elapsed-from]").forEach(function (el) {
      el.textContent = String(parseInt(el.dataset.elapsedFrom, 10) + Math.floor((Date.now() - loadedAt) / 1000));
    });
  }, 1000);

  function refresh() {
    if (inflight) { again = true; return; }
    inflight = true;
    const before = state() ? state().dataset.status : "";
    const open = Array.from(live.querySelectorAll("details")).map(function (d) { return d.className + ":" + d.open; });
    fetch(live.dataset.liveUrl, {credentials: "same-origin", headers: {"Accept": "text/html"}})
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.text(); })
      .then(function (html) {
        live.innerHTML = html;
        // Keep <details> the reader opened or closed as they were.
        open.forEach(function (entry) {
          const parts = entry.split(":");
          const d = parts[0] ? live.querySelector("details." + parts[0].split(" ")[0]) : null;
          if (d) d.open = parts[1] === "true";
        });
        const s = state();
        if (s && s.dataset.status !== before) {
          if (announcer) announcer.textContent = "Status: " + s.dataset.statusWords;
          document.title = s.dataset.statusWords + " · " + document.title.split(" · ").slice(1).join(" · ");
        }
        if (terminal()) stop();
        else if (!source) startPolling();  // the stream ended with a RESULT, and more follows (a record's confirmation)
        else setConnection(source.readyState === 1 ? "live" : "");
      })
      .catch(function () { setConnection("reconnecting…"); })
      .finally(function () { inflight = false; if (again) { again = false; schedule(); } });
  }

  function schedule() {
    if (pending) return;
    pending = setTimeout(function () { pending = null; refresh(); }, 120);
  }

  function stop() {
    if (source) { source.close(); source = null; }
    if (poller) { clearInterval(poller); poller = null; }
    setConnection("");
  }

  function startPolling() {
    if (!poller) poller = setInterval(function () { if (terminal()) stop(); else refresh(); }, 2000);
  }

  if (terminal()) return;
  if (!window.EventSource) { startPolling(); return; }
  const after = state().dataset.lastSeq || "0";
  source = new EventSource(live.dataset.eventsUrl + "?after=" + encodeURIComponent(after));
  const TYPES = ["STATUS", "VM", "VM_READY", "COMPILE_RESULT", "TEST_RESULT", "BENCHMARK_RESULT", "REQUEUED",
                 "CANCEL_REQUESTED", "LOG", "RESULT"];
  TYPES.forEach(function (type) {
    source.addEventListener(type, function () {
      if (type === "RESULT" && source) { source.close(); source = null; }  // the stream ends here
      schedule();
    });
  });
  source.addEventListener("open", function () { setConnection("live"); schedule(); });
  source.addEventListener("heartbeat", function () { setConnection("live"); });
  source.addEventListener("error", function () {
    if (!source) return;
    if (source.readyState === 2) { source = null; startPolling(); }  // refused (401/404): poll instead
    else setConnection("reconnecting…");
  });
  // A safety net for event types this page does not know: look again every 10 s.
  setInterval(function () { if (!terminal()) schedule(); }, 10000);
})();
