// Live updates for the submission page: follow the SSE stream, reload once at the final RESULT so
// the server renders the result tables. Without JavaScript the page refreshes itself instead.
(function () {
  const section = document.getElementById("submission");
  if (!section || section.dataset.terminal === "1" || !window.EventSource) return;
  const list = document.getElementById("events");
  const status = document.getElementById("status");
  const url = section.dataset.eventsUrl + "?after=" + section.dataset.lastSeq;
  const source = new EventSource(url);
  const show = function (event) {
    const data = JSON.parse(event.data);
    const item = document.createElement("li");
    const code = document.createElement("code");
    code.textContent = data.type;
    item.appendChild(code);
    item.appendChild(document.createTextNode(" " + JSON.stringify(data.payload)));
    list.appendChild(item);
    if (data.type === "STATUS" && data.payload.status) {
      status.textContent = data.payload.status;
      status.className = "status " + data.payload.status;
      const position = document.getElementById("position");
      if (position && data.payload.status !== "IN_QUEUE") position.remove();
    }
    if (data.type === "RESULT") {
      source.close();
      window.location.reload();
    }
  };
  ["STATUS", "VM", "VM_READY", "COMPILE_RESULT", "TEST_RESULT", "BENCHMARK_RESULT", "HEARTBEAT",
   "REQUEUED", "CANCEL_REQUESTED", "RESULT"].forEach(function (type) { source.addEventListener(type, show); });
})();
