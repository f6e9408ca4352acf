// Problem page enhancements: KaTeX for the statement's math, a CodeMirror editor on the source
// textarea (the form still posts the textarea, so everything works without this file), starter
// templates that follow the language, and pools that only offer the languages and modes they take.
(function () {
  "use strict";

  // ---- math ----------------------------------------------------------------------------------
  if (window.katex) {
    document.querySelectorAll(".statement .math").forEach(function (el) {
      try {
        window.katex.render(el.textContent, el, {displayMode: el.classList.contains("block"), throwOnError: false});
      } catch (e) { /* leave the TeX source readable */ }
    });
  }

  const form = document.getElementById("submit-form");
  if (!form) return;
  const textarea = document.getElementById("id_source");
  const language = document.getElementById("id_language");
  const templatesNode = document.getElementById("starter-templates");
  const templates = templatesNode ? JSON.parse(templatesNode.textContent) : {};

  // ---- editor --------------------------------------------------------------------------------
  const GPU_WORDS = ("__global__ __device__ __host__ __shared__ __constant__ __restrict__ __launch_bounds__ " +
    "__syncthreads __syncwarp __forceinline__ __noinline__ hipLaunchKernelGGL extern").split(" ");
  const GPU_BUILTINS = ("threadIdx blockIdx blockDim gridDim warpSize hipThreadIdx_x hipBlockIdx_x hipBlockDim_x " +
    "hipGridDim_x atomicAdd atomicMax atomicMin __shfl_down __shfl_xor __shfl_down_sync __shfl_xor_sync " +
    "hipMalloc hipMemcpy hipFree hipDeviceSynchronize hipGetLastError cudaMalloc cudaMemcpy cudaFree " +
    "cudaDeviceSynchronize cudaGetLastError size_t float4 float2 int4 dim3").split(" ");
  let editor = null;
  if (window.CodeMirror && textarea) {
    const CM = window.CodeMirror;
    const base = CM.mimeModes["text/x-c++src"];
    if (base && !CM.mimeModes["text/x-gpu-c++"]) {
      const keywords = Object.assign({}, base.keywords);
      GPU_WORDS.forEach(function (w) { keywords[w] = true; });
      const builtin = Object.assign({}, base.builtin || {});
      GPU_BUILTINS.forEach(function (w) { builtin[w] = true; });
      CM.defineMIME("text/x-gpu-c++", Object.assign({}, base, {keywords: keywords, builtin: builtin}));
    }
    let escaped = false;  // Esc, then Tab leaves the editor (keyboard users must not be trapped)
    editor = CM.fromTextArea(textarea, {
      // Long lines wrap: a kernel's launch line or a compiler-pasted one stays readable without scrolling sideways.
      mode: "text/x-gpu-c++", lineNumbers: true, lineWrapping: true, indentUnit: 4, tabSize: 4, matchBrackets: true,
      autoCloseBrackets: true, viewportMargin: Infinity, screenReaderLabel: "Source",
      extraKeys: {
        "Esc": function () { escaped = true; },
        "Tab": function (cm) {
          if (escaped) { escaped = false; leave(cm, 1); return; }
          if (cm.somethingSelected()) cm.indentSelection("add"); else cm.replaceSelection("    ", "end");
        },
        "Shift-Tab": function (cm) { if (escaped) { escaped = false; leave(cm, -1); return; } cm.indentSelection("subtract"); },
        "Ctrl-Enter": function () { submitWith("benchmark"); },
        "Cmd-Enter": function () { submitWith("benchmark"); },
      },
    });
    editor.on("keydown", function (cm, event) { if (event.key !== "Escape" && event.key !== "Tab") escaped = false; });
    const label = document.querySelector('label[for="id_source"]');
    if (label) label.addEventListener("click", function () { editor.focus(); });
    document.getElementById("editor").classList.add("enhanced");
  }

  // CodeMirror's own keymap would take Tab even when we pass it on, so move the focus ourselves to
  // the next (or previous) focusable control outside the editor, as the browser would.
  function leave(cm, direction) {
    const wrapper = cm.getWrapperElement();
    const focusable = Array.from(document.querySelectorAll(
      'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'))
      .filter(function (el) { return !wrapper.contains(el) && el.offsetParent !== null; });
    const after = focusable.filter(function (el) {
      return wrapper.compareDocumentPosition(el) & (direction > 0 ? Node.DOCUMENT_POSITION_FOLLOWING : Node.DOCUMENT_POSITION_PRECEDING);
    });
    const target = direction > 0 ? after[0] : after[after.length - 1];
    if (target) target.focus();
  }

  function submitWith(mode) {
    // The shown button of that mode, else the first shown one (an emulated pool has no benchmark).
    const shown = Array.from(form.querySelectorAll('button[name="mode"]')).filter(function (b) { return !b.hidden; });
    const button = shown.find(function (b) { return b.value === mode; }) || shown[0];
    if (button && form.requestSubmit) form.requestSubmit(button);
  }
  function getSource() { return editor ? editor.getValue() : textarea.value; }
  function setSource(text) { if (editor) editor.setValue(text); else textarea.value = text; }
  function untouched() {
    const now = getSource().trim();
    return now === "" || Object.keys(templates).some(function (k) { return templates[k].trim() === now; });
  }

  // ---- language follows templates; pools restrict languages and modes -------------------------
  function chosenPool() { return form.querySelector('input[name="pool"]:checked'); }
  function offerFor(radio) {
    try { return JSON.parse(radio.dataset.offers || "{}")[language.value] || null; } catch (e) { return null; }
  }
  // Only the buttons of modes the chosen pool takes for the chosen language show; where the pool
  // checks it on the emulated device, "Check on CPU (emulated)" replaces "Check only" and its limits
  // show beside it. Without an offer to go by, the other buttons stay and the server says what is possible.
  function applyModes() {
    const radio = chosenPool();
    const offer = radio && language ? offerFor(radio) : null;
    const note = document.getElementById("emulated-note");
    form.querySelectorAll('button[name="mode"]').forEach(function (button) {
      const emulatedButton = button.dataset.emulated === "1";
      button.hidden = offer ? offer.modes.indexOf(button.value) < 0 ||
        (button.value === "check" && emulatedButton !== offer.emulated) : emulatedButton;
    });
    if (note) note.hidden = !(offer && offer.emulated);
    const modesNote = document.getElementById("modes-note");
    if (modesNote) modesNote.hidden = !!(offer && offer.modes.indexOf("benchmark") < 0);
  }
  // Triton submissions are Python; the others C++ with the GPU words.
  function applyEditorMode() {
    if (editor && language) editor.setOption("mode", language.value === "triton" ? "python" : "text/x-gpu-c++");
  }
  if (language) {
    language.addEventListener("change", function () {
      if (untouched() && templates[language.value] !== undefined) setSource(templates[language.value]);
      applyEditorMode();
      applyModes();
    });
    applyEditorMode();
  }
  function applyPool(radio) {
    if (!radio || !language) return;
    const allowed = (radio.dataset.languages || "").split(",").filter(Boolean);
    Array.from(language.options).forEach(function (opt) {
      opt.disabled = allowed.length > 0 && allowed.indexOf(opt.value) < 0;
    });
    if (language.selectedOptions[0] && language.selectedOptions[0].disabled) {
      language.value = allowed[0];
      language.dispatchEvent(new Event("change"));
    }
    applyModes();
  }
  form.querySelectorAll('input[name="pool"]').forEach(function (radio) {
    radio.addEventListener("change", function () { applyPool(radio); });
  });
  applyPool(chosenPool());

  // The submit buttons say what happens; disable both after a click so a double click sends one.
  form.addEventListener("submit", function (event) {
    const used = event.submitter;
    if (used && used.name === "mode") {
      let hidden = form.querySelector('input[type="hidden"][name="mode"]');
      if (!hidden) { hidden = document.createElement("input"); hidden.type = "hidden"; hidden.name = "mode"; form.appendChild(hidden); }
      hidden.value = used.value;
    }
    form.querySelectorAll('button[name="mode"]').forEach(function (b) { b.disabled = true; });
    if (used) used.textContent = "Submitting…";
  });
})();
