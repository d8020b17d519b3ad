{% autoescape off %}// The site's service worker, served at /sw.js by scoring/views/app.py so that its scope
// is the whole site. Hand-written, no library. What it does (docs/architecture.md, Offline
// and the outbox):
// - keeps the site's shell (style sheets, scripts, htmx, icons, the offline pages) from its
//   installation, in a cache named after this deploy's version;
// - table pages (/tables/<pk>/): asks the network first and keeps the last good copy of
//   each; with no connection it shows that copy, marked as such (static/js/offline.js puts
//   up «Нет связи — показан лист на HH:MM»), never as if it were fresh;
// - any other page: the network; with no connection, the offline page;
// - a web push (scoring/services/notices.py: {title, body, url}, encrypted for this
//   device): shown as a notification; a tap opens its page, in a window of the site
//   already open if there is one.
// It never keeps a POST, the admin, or any other page. Each copy is kept under the viewer
// it was made for (X-Viewer, clubsite/viewer.py) and shown only to him: an answer made for
// someone else, or a sign-out (the site's or the admin's), forgets the copies (a phone
// the club shares).
"use strict";

const CONFIG = {{ config }};
const SHELL_CACHE = "shell-" + CONFIG.version;
const TABLES = "tables-" + CONFIG.version + "-"; // and the viewer's marker ("": nobody)
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
  const current = (name) => name === SHELL_CACHE || name.startsWith(TABLES);
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(names.filter((name) => !current(name)).map((name) => caches.delete(name)))
      )
      .then(() => self.clients.claim())
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method === "POST" && CONFIG.signOut.includes(url.pathname)) {
    // Signing out forgets the kept pages: they show what the member saw (a shared phone).
    event.waitUntil(forgetTables(null));
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
    event.respondWith(fetch(request).then(seen, offlinePage));
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
  let response;
  try {
    response = await fetch(request);
  } catch (error) {
    const cache = await viewersCopies();
    const kept = cache && (await cache.match(key, { ignoreVary: true }));
    return kept ? marked(kept) : offlinePage();
  }
  const viewer = response.headers.get("X-Viewer");
  await seen(response);
  if (response.ok && !response.redirected && viewer !== null) {
    await keep(TABLES + viewer, key, response.clone()).catch(() => {});
  }
  return response;
}

// An answer names whom it was made for: the copies kept for anyone else go (another
// member signed in, or nobody: his session ended).
async function seen(response) {
  const viewer = response.headers.get("X-Viewer");
  if (viewer !== null) {
    await forgetTables(TABLES + viewer).catch(() => {});
  }
  return response;
}

async function forgetTables(except) {
  const names = await caches.keys();
  const others = names.filter((name) => name.startsWith("tables-") && name !== except);
  await Promise.all(others.map((name) => caches.delete(name)));
}

// The copies of whoever is signed in now, or null: the viewer cookie says who, where the
// worker can read cookies; elsewhere, the copies of the last answer's viewer (the others
// are gone).
async function viewersCopies() {
  let name;
  if (self.cookieStore) {
    const cookie = await self.cookieStore.get(CONFIG.viewerCookie).catch(() => null);
    name = TABLES + (cookie ? cookie.value : "");
  } else {
    name = (await caches.keys()).find((kept) => kept.startsWith(TABLES));
  }
  return name && (await caches.has(name)) ? caches.open(name) : null;
}

// The copy carries the time it was fetched, for the banner.
async function keep(name, key, response) {
  const headers = new Headers(response.headers);
  headers.set("X-Kept-At", new Date().toISOString());
  const body = await response.blob();
  const cache = await caches.open(name);
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
  const cache = await viewersCopies();
  const links = [];
  if (!cache) {
    return links;
  }
  for (const request of await cache.keys()) {
    const html = await (await cache.match(request, { ignoreVary: true })).text();
    const heading = html.match(/<h1>([^<]*)<\/h1>/);
    const path = new URL(request.url).pathname;
    links.push('<li><a href="' + path + '">' + (heading ? heading[1] : path) + "</a></li>");
  }
  return links.reverse(); // the newest first
}

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : "" };
  }
  const title = message.title || self.registration.scope;
  event.waitUntil(
    self.registration.showNotification(title, {
      body: message.body || "",
      data: { url: message.url || "/" },
      icon: CONFIG.shell.find((path) => path.includes("icon-192")),
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url || "/", self.location.origin);
  // Only the site's own pages: a message never opens another site.
  const url = target.origin === self.location.origin ? target.href : self.location.origin;
  event.waitUntil(
    (async () => {
      const open = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const client of open) {
        if (new URL(client.url).origin === self.location.origin && "navigate" in client) {
          await client.focus();
          return client.navigate(url);
        }
      }
      return self.clients.openWindow(url);
    })(),
  );
});
{% endautoescape %}
