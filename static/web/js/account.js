// Account page: a Copy button beside a new API token (shown only where this script runs; the field
// itself selects its text on focus for everyone else).
(function () {
  "use strict";
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    const field = document.getElementById(button.dataset.copy);
    const said = button.parentNode.querySelector(".copy-said");
    if (!field) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      const done = function () { if (said) said.textContent = "Copied."; button.textContent = "Copied"; };
      const fallback = function () {
        field.select();
        try { if (document.execCommand("copy")) { done(); return; } } catch (e) { /* below */ }
        if (said) said.textContent = "Press Ctrl+C (⌘C) to copy the selected token.";
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(field.value).then(done, fallback);
      } else {
        fallback();
      }
    });
  });
})();
