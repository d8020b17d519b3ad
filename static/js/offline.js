// What the page says when the connection is gone (docs/architecture.md, Offline and the
// outbox). A file, not inline script: the site's Content Security Policy allows none. The
// words come translated in this script tag's data attributes (templates/base.html).
// 1. An htmx request that fails at the network level (htmx:sendError, htmx:timeout) says
//    «Нет связи. Данные не потеряны.» next to its form, which keeps what was typed: htmx
//    swaps nothing when no answer came. The next answer that arrives takes the line away.
// 2. A table page shown from the phone's copy (the service worker marks it with
//    <meta name="offline-copy">) says so, with the time of the copy, until the live sheet
//    answers again.
(() => {
  "use strict";

  const words = document.currentScript ? document.currentScript.dataset : null;
  if (!words) {
    return;
  }

  function line(className, text, role) {
    const p = document.createElement("p");
    p.className = `message error ${className}`;
    p.setAttribute("role", role);
    p.textContent = text;
    return p;
  }

  // Above the form the request came from (a redraw, a save, a preview), or above the
  // element itself (the live sheet's poll).
  function anchorOf(elt) {
    return elt.closest?.("form") || elt;
  }

  function sayNoConnection(event) {
    const anchor = anchorOf(event.detail.elt || event.target);
    if (!anchor?.isConnected) {
      return;
    }
    const before = anchor.previousElementSibling;
    if (before?.classList.contains("no-connection")) {
      return;
    }
    anchor.before(line("no-connection", words.noConnection, "alert"));
  }

  function clearNoConnection(event) {
    if (!event.detail.successful) {
      return;
    }
    for (const p of document.querySelectorAll(".no-connection, .offline-banner")) {
      p.remove();
    }
  }

  document.addEventListener("htmx:sendError", sayNoConnection);
  document.addEventListener("htmx:timeout", sayNoConnection);
  document.addEventListener("htmx:afterRequest", clearNoConnection);

  function twoDigits(n) {
    return String(n).padStart(2, "0");
  }

  function markKeptCopy() {
    const meta = document.querySelector('meta[name="offline-copy"]');
    const main = document.querySelector("main");
    if (!meta || !main) {
      return;
    }
    const at = new Date(meta.content);
    const time = Number.isNaN(at.getTime())
      ? "?"
      : `${twoDigits(at.getHours())}:${twoDigits(at.getMinutes())}`;
    main.prepend(line("offline-banner", words.stale.replace("%(time)s", time), "status"));
  }

  markKeptCopy(); // a deferred script runs once the page is parsed
})();
