// Pushed updates of the live regions (docs/architecture.md, How a deal flows; docs/deploy-by-hand.md,
// Pushed updates). A region that names a stream (data-live-events) is fetched again when
// its stream says the table moved on, exactly as its poll fetches it (hx-get, with the
// ETag), by the htmx event "live-changed" its hx-trigger lists. While the stream is open
// the region's poll is skipped; when the stream fails (no push server: /events/ answers
// 204; a proxy that breaks streams; no connection) the poll goes on as before, and when
// the stream opens again the region is fetched once, for what it missed meanwhile.
// data-live-pause: the least seconds between two fetches of a region (a busy home page
// hears of every table), the events between them fetched together.
// A region that shows a revision (data-revision: the live sheet) names the least one its
// fetch may be answered at (the header X-Live-Revision): the one it shows, the one an event
// told it, or one past the shown one when it is fetched because something changed. An app
// server answers a plain poll from what it read up to a second ago, and never answers a
// fetch that names a later revision so (scoring/selectors/tables.py, polled_table_version).
// A page names live.js in its own head block, after htmx (base.html): deferred scripts run
// in the document's order.
(() => {
  "use strict";

  if (!window.htmx) {
    return;
  }

  document.addEventListener("htmx:configRequest", (event) => {
    const region = event.detail.elt;
    const shown = Number.parseInt(region?.dataset?.revision || "", 10);
    if (!region?.dataset?.liveEvents || !Number.isInteger(shown)) {
      return;
    }
    let least = shown;
    if (event.detail.triggeringEvent?.type === "live-changed") {
      const told = Number.parseInt(region.dataset.liveTold || "", 10);
      least = Number.isInteger(told) && told > shown ? told : shown + 1;
      delete region.dataset.liveTold;
    }
    event.detail.headers["X-Live-Revision"] = String(least);
  });

  if (!window.EventSource) {
    return; // the poll alone
  }

  const streams = new Map(); // url → { source, open, last, timer, reopens }

  function regions(url) {
    return document.querySelectorAll(`[data-live-events="${CSS.escape(url)}"]`);
  }

  // Whether the region shows the revision announced already (the scorer's own save
  // redrew it) or a later one.
  function shows(region, revision) {
    const shown = Number.parseInt(region.dataset.revision || "", 10);
    return Number.isInteger(revision) && Number.isInteger(shown) && shown >= revision;
  }

  // A fetch asked while the region's previous one is in flight is queued by htmx on the
  // element, and dropped when its turn comes if that element is gone: the answer in flight
  // swapped it for a new one (hx-swap="outerHTML"). With the stream open the poll is
  // skipped, so the change told meanwhile would stay unseen until the next one. So a
  // change told to a busy region is noted, and asked again of the region drawn in its
  // place (htmx:load, after the swap's settle) unless that one shows it already.
  const busy = new WeakSet(); // regions with a fetch in flight
  const missed = new WeakMap(); // busy region → the revision told (null: unknown)
  const pending = new Map(); // url → the revision told to a region swapped out meanwhile

  function later(a, b) {
    return a === null || b === null ? null : Math.max(a, b);
  }

  function fetchRegions(url, revision) {
    for (const region of regions(url)) {
      if (!shows(region, revision)) {
        if (Number.isInteger(revision)) {
          region.dataset.liveTold = String(revision);
        }
        if (busy.has(region)) {
          const told = Number.isInteger(revision) ? revision : null;
          missed.set(region, missed.has(region) ? later(missed.get(region), told) : told);
        }
        window.htmx.trigger(region, "live-changed");
      }
    }
  }

  document.addEventListener("htmx:beforeRequest", (event) => {
    if (event.detail.elt?.dataset?.liveEvents) {
      busy.add(event.detail.elt);
    }
  });

  document.addEventListener("htmx:afterRequest", (event) => {
    // The region that asked: a region swapped out hears nothing, and htmx tells its
    // parent instead (event.detail.elt is then the parent).
    const region = event.detail.requestConfig?.elt ?? event.detail.elt;
    busy.delete(region);
    if (!missed.has(region)) {
      return;
    }
    const told = missed.get(region);
    missed.delete(region);
    if (!region.isConnected) {
      // Swapped out: what htmx queued on it is dropped (still there, htmx sends it).
      const url = region.dataset.liveEvents;
      pending.set(url, pending.has(url) ? later(pending.get(url), told) : told);
    }
  });

  // htmx:load is told of the top of what a swap drew: the region itself, or a part of the
  // page around it (#table-body redrawn by an undo, say).
  document.addEventListener("htmx:load", (event) => {
    const drawn = event.detail.elt;
    for (const [url, told] of pending) {
      if (Array.from(regions(url)).some((region) => drawn?.contains(region))) {
        pending.delete(url);
        fetchRegions(url, told === null ? undefined : told);
      }
    }
  });

  function changed(url, stream, revision) {
    const first = regions(url)[0];
    const pause = 1000 * (Number.parseFloat(first?.dataset.livePause || "0") || 0);
    const wait = stream.last + pause - Date.now();
    if (wait <= 0) {
      stream.last = Date.now();
      fetchRegions(url, revision);
    } else if (!stream.timer) {
      stream.timer = window.setTimeout(() => {
        stream.timer = null;
        stream.last = Date.now();
        fetchRegions(url, undefined);
      }, wait);
    }
  }

  // A browser reconnects by itself after a dropped connection, but gives up on any answer
  // other than 200: a push server too busy to take a stream at once (Pushpin answers 502,
  // or 500 when its accept service is behind) is asked again, this many times, 5 s later
  // each time more, the poll going on meanwhile. /events/ answering 204 (no push server)
  // is asked as many times, then left to the poll.
  const REOPENS = 3;

  function listen(url) {
    if (streams.has(url)) {
      return;
    }
    const stream = { source: null, open: false, last: 0, timer: null, reopens: 0 };
    streams.set(url, stream);
    connect(url, stream);
  }

  function connect(url, stream) {
    const source = new EventSource(url);
    stream.source = source;
    // django-eventstream's first message on every (re)connection: what happened before it
    // (since the page was drawn, or while the stream was closed) is fetched once.
    source.addEventListener("stream-open", () => {
      stream.open = true;
      stream.reopens = 0;
      changed(url, stream, undefined);
    });
    source.addEventListener("revision", (event) => {
      let revision;
      try {
        revision = JSON.parse(event.data).revision;
      } catch {
        revision = undefined;
      }
      changed(url, stream, revision);
    });
    source.addEventListener("error", () => {
      stream.open = false; // the poll takes over
      if (source.readyState === EventSource.CLOSED && stream.reopens < REOPENS) {
        stream.reopens += 1;
        window.setTimeout(() => connect(url, stream), 5000 * stream.reopens);
      }
    });
  }

  // Skip a region's poll (htmx's "every" trigger has no triggering event) while its
  // stream is open.
  document.addEventListener("htmx:confirm", (event) => {
    const url = event.detail.elt?.dataset?.liveEvents;
    if (url && !event.detail.triggeringEvent && streams.get(url)?.open) {
      event.preventDefault();
    }
  });

  function start() {
    for (const region of document.querySelectorAll("[data-live-events]")) {
      listen(region.dataset.liveEvents);
    }
  }

  start(); // a deferred script runs once the page is parsed
})();
