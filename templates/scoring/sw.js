{% autoescape off %}// The site's service worker, served at /sw.js by scoring/views/app.py so that its scope
// is the whole site. Hand-written, no library. What it does (docs/architecture.md, Offline
// and the outbox):
// - keeps the site's shell (style sheets, scripts, htmx, icons, the offline pages) from its
//   installation, in a cache named after this deploy's version;
// - table pages (/tables/<pk>/): asks the network first and keeps the last good copy of
//   each; with no connection it shows that copy, marked as such (static/js/offline.js puts
//   up «Нет связи — показан лист на HH:MM»), never as if it were fresh;
// - any other page: the network; with no connection, the offline page.
// It never keeps a POST, the admin, or any other page, and signing out forgets the kept
// table pages.
"use strict";

const CONFIG = {{ config }};
const SHELL_CACHE = "shell-" + CONFIG.version;
const TABLES_CACHE = "tables-" + CONFIG.version;
const TABLES_KEPT = 30; // the newest copies; a phone keeps the tables it scored lately
const TABLE_PAGE = /^\/tables\/\d+\/$/;
const SHELL = new Set(CONFIG.shell);

self.addEventListener("install", (event) => {
  const wanted = CONFIG.shell.concat(Object.values(CONFIG.offline));
  event.waitUntil(
    caches
      .open(SHELL_CACHE)
      .then((cache) => cache.addAll(wanted))
      .then(() => self.skipWaiting())
  );
});

// A new deploy's worker takes over at once and drops the caches of the one before: their
// pages name style sheets and scripts that the new deploy no longer serves.
self.addEventListener("activate", (event) => {
  const current = new Set([SHELL_CACHE, TABLES_CACHE]);
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(names.filter((name) => !current.has(name)).map((name) => caches.delete(name)))
      )
      .then(() => self.clients.claim())
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method === "POST" && url.pathname === CONFIG.signOut) {
    // Signing out forgets the kept pages: they show what the member saw (a shared phone).
    event.waitUntil(caches.delete(TABLES_CACHE));
  }
  if (request.method !== "GET") {
    return; // writes go to the network as they are; the page's outbox keeps them
  }
  if (url.origin !== self.location.origin || url.pathname.startsWith("/admin/")) {
    return;
  }
  if (SHELL.has(url.pathname)) {
    event.respondWith(fromShell(request));
  } else if (request.mode === "navigate" && TABLE_PAGE.test(url.pathname) && !url.search) {
    event.respondWith(tablePage(request, url));
  } else if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(offlinePage));
  }
});

function fromShell(request) {
  return caches
    .open(SHELL_CACHE)
    .then((cache) => cache.match(request, { ignoreVary: true, ignoreSearch: true }))
    .then((kept) => kept || fetch(request));
}

async function tablePage(request, url) {
  const key = url.origin + url.pathname;
  try {
    const response = await fetch(request);
    if (response.ok && !response.redirected) {
      await keep(key, response.clone());
    }
    return response;
  } catch (error) {
    const cache = await caches.open(TABLES_CACHE);
    const kept = await cache.match(key, { ignoreVary: true });
    return kept ? marked(kept) : offlinePage();
  }
}

// The copy carries the time it was fetched, for the banner.
async function keep(key, response) {
  const headers = new Headers(response.headers);
  headers.set("X-Kept-At", new Date().toISOString());
  const body = await response.blob();
  const cache = await caches.open(TABLES_CACHE);
  await cache.put(key, new Response(body, { status: response.status, headers: headers }));
  const keys = await cache.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - TABLES_KEPT)).map((k) => cache.delete(k)));
}

// A kept copy says that it is one: a meta tag that static/js/offline.js turns into the
// banner (a tag, not a script: the page's Content Security Policy stays as it was).
async function marked(kept) {
  const at = kept.headers.get("X-Kept-At") || "";
  const html = await kept.text();
  const tag = '<meta name="offline-copy" content="' + at.replace(/[^0-9TZ:.-]/g, "") + '">';
  const body = html.replace(/<head>/i, "<head>" + tag);
  return new Response(body, { status: 200, headers: kept.headers });
}

// The offline page, in the phone's language, with links to the table pages kept.
async function offlinePage() {
  const language = (self.navigator.language || "").toLowerCase().startsWith("en") ? "en" : "ru";
  const url = CONFIG.offline[language] || Object.values(CONFIG.offline)[0];
  const page = await (await caches.open(SHELL_CACHE)).match(url, { ignoreVary: true });
  if (!page) {
    return Response.error();
  }
  const links = await keptTables();
  if (!links.length) {
    return page;
  }
  const html = (await page.text())
    .replace('<ul class="kept-tables"></ul>', '<ul class="kept-tables">' + links.join("") + "</ul>")
    .replace(" hidden data-kept", " data-kept");
  return new Response(html, { status: 200, headers: page.headers });
}

// A link to each kept table page, named by its heading (text the server escaped already).
async function keptTables() {
  const cache = await caches.open(TABLES_CACHE);
  const links = [];
  for (const request of await cache.keys()) {
    const html = await (await cache.match(request, { ignoreVary: true })).text();
    const heading = html.match(/<h1>([^<]*)<\/h1>/);
    const path = new URL(request.url).pathname;
    links.push('<li><a href="' + path + '">' + (heading ? heading[1] : path) + "</a></li>");
  }
  return links.reverse(); // the newest first
}
{% endautoescape %}
