// Writes at a table that stored nothing answer with an error status and something to show
// (clubsite/writes.py, scoring/views/tables.py): 403 when the member is signed out or the
// form's token is stale, 409 when the table changed since the page was drawn, 400 when the
// form says nothing of the table's revision. htmx swaps no error answer by default; this
// lets it swap those the server marks with X-Write-Refused, where the answer says
// (HX-Retarget). The form itself stays as typed unless the answer replaces it.
(function () {
  "use strict";

  document.addEventListener("htmx:beforeSwap", (event) => {
    const xhr = event.detail.xhr;
    if (!xhr || xhr.status < 400 || !xhr.getResponseHeader("X-Write-Refused")) {
      return;
    }
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  });
})();
