// Registers the site's service worker (/sw.js, scoring/views/app.py): it keeps the site's
// shell and the last copy of each table page for use without a connection. A file, not
// inline script: the site's Content Security Policy allows none. Where the browser has no
// service workers (or refuses them: plain http other than localhost) the site works as
// before, online only.
(() => {
  "use strict";

  const script = document.currentScript;
  if (!("serviceWorker" in navigator) || !script) {
    return;
  }
  navigator.serviceWorker.register(script.dataset.worker, { scope: "/" }).catch(() => {
    // Nothing to tell the member: the pages work online without it.
  });
})();
