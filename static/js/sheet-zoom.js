// The drawn sheet's "Actual size" switch and the frame's scroll, kept through a live
// update (issue 30). The table page's poll and a saved deal swap the whole sheet region
// (templates/scoring/table_detail.html, #sheet): the new region comes unzoomed and
// scrolled to the left, so what the viewer chose is put back on it before it is painted.
// The switch itself is a checkbox that works without this file (static/css/site.css).
(() => {
  const KEY = "sheet-zoom";
  const state = { zoomed: false, left: 0, top: 0 };

  try {
    state.zoomed = window.sessionStorage.getItem(KEY) === "1";
  } catch {
    // Storage refused (a private window): the switch still works on this page.
  }

  function restore() {
    const box = document.getElementById("sheet-zoom");
    if (box) {
      box.checked = state.zoomed;
    }
    const frame = document.querySelector("#sheet .pulka-svg");
    if (frame) {
      frame.scrollLeft = state.left;
      frame.scrollTop = state.top;
    }
  }

  document.addEventListener("change", (event) => {
    if (event.target instanceof HTMLInputElement && event.target.id === "sheet-zoom") {
      state.zoomed = event.target.checked;
      try {
        window.sessionStorage.setItem(KEY, state.zoomed ? "1" : "0");
      } catch {
        // Kept for this page only.
      }
    }
  });

  // Scroll events do not bubble: listen in the capture phase for the frame's own.
  document.addEventListener(
    "scroll",
    (event) => {
      const frame = event.target;
      if (frame instanceof Element && frame.matches("#sheet .pulka-svg")) {
        state.left = frame.scrollLeft;
        state.top = frame.scrollTop;
      }
    },
    true,
  );

  // htmx fires afterSwap on the new content, before the browser paints it.
  document.addEventListener("htmx:afterSwap", restore);
  document.addEventListener("DOMContentLoaded", restore);
})();
