// The outbox: deals entered at a table without a connection wait on the phone and are sent
// when it returns (docs/architecture.md, Offline and the outbox). A file, not inline
// script: the site's Content Security Policy allows none. Without JavaScript nothing of
// this runs and the form posts as it always did.
//
// - Every save of a deal form carries a write_key (a UUID4; the server's own when the form
//   has one): the server stores a key once, so a save resent after a lost answer is not a
//   second deal.
// - A save made offline, or whose request fails at the network level (htmx:sendError,
//   htmx:timeout), goes into an IndexedDB queue with every field of the form; the page
//   says so and the form is cleared for the next deal, with a new write_key. Only a deal
//   that passes the page's own checks (deal-form.js: tricks that add up, every choice
//   made, the rows of this declarer) goes in; anything else is refused there, in words.
// - When the connection returns (the `online` event, each page load, and every half
//   minute while deals wait) the queue is sent in order, one deal at a time. A deal queued
//   on top of another was drawn for the table before that one: once that one is stored,
//   the next one's revision becomes the answer's X-Table-Revision (and its deal count one
//   more), as if its form had been redrawn.
// - A refusal (a stale revision, a rule, a lost session) stops the queue: the page shows
//   the server's words and the deal's, and the member sends it again or removes it. A
//   refused deal is never dropped by itself.
(() => {
  "use strict";

  const script = document.currentScript;
  if (!script || !("indexedDB" in window)) {
    return;
  }
  const words = script.dataset;
  const DEAL_ACTION = /\/tables\/(\d+)\/deals\/$/;
  const RETRY_SECONDS = 30;

  // -- the queue, in IndexedDB ----------------------------------------------------------------

  function openQueue() {
    return new Promise((resolve, reject) => {
      const request = indexedDB.open("clubsite-outbox", 1);
      request.onupgradeneeded = () => {
        request.result.createObjectStore("deals", { keyPath: "id", autoIncrement: true });
      };
      request.onsuccess = () => {
        resolve(request.result);
      };
      request.onerror = () => {
        reject(request.error);
      };
    });
  }

  function inQueue(mode, work) {
    return openQueue().then(
      (db) =>
        new Promise((resolve, reject) => {
          const transaction = db.transaction("deals", mode);
          const request = work(transaction.objectStore("deals"));
          transaction.oncomplete = () => {
            db.close();
            resolve(request ? request.result : undefined);
          };
          transaction.onerror = () => {
            db.close();
            reject(transaction.error);
          };
        }),
    );
  }

  function queued() {
    return inQueue("readonly", (store) => store.getAll()); // in key order: as entered
  }

  function keepDeal(item) {
    return inQueue("readwrite", (store) => store.put(item));
  }

  function forgetDeal(id) {
    return inQueue("readwrite", (store) => store.delete(id));
  }

  // -- the deal form --------------------------------------------------------------------------

  function tableOf(form) {
    const match = form.action && new URL(form.action, location.href).pathname.match(DEAL_ACTION);
    return match ? Number(match[1]) : null;
  }

  function uuid4() {
    if (window.crypto && crypto.randomUUID) {
      return crypto.randomUUID();
    }
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return [
      hex.slice(0, 8),
      hex.slice(8, 12),
      hex.slice(12, 16),
      hex.slice(16, 20),
      hex.slice(20),
    ].join("-");
  }

  function hidden(form, name) {
    let input = form.querySelector(`input[name="${name}"]`);
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      form.append(input);
    }
    return input;
  }

  function ensureWriteKey(form) {
    const input = hidden(form, "write_key");
    if (!input.value) {
      input.value = uuid4();
    }
  }

  // A save, not a preview ("Why these numbers?") or a redraw ("Show fields"): those need
  // the server's answer and are only told there is no connection.
  function isSave(fields) {
    return !fields.has("preview") && !fields.has("change");
  }

  // The deal in words, for the member to recognise it: each chosen button with its row's
  // name, and whatever was typed.
  function dealWords(form) {
    const parts = [];
    form.querySelectorAll("input:checked").forEach((input) => {
      const group = input.closest("fieldset");
      const legend = group?.querySelector("legend");
      const label = input.closest("label");
      const value = label ? label.textContent.trim() : input.value;
      parts.push(legend ? `${legend.textContent.trim()}: ${value}` : value);
    });
    form.querySelectorAll('input[type="text"], input[type="number"], textarea').forEach((input) => {
      if (input.value) {
        parts.push(input.value);
      }
    });
    return parts.join(" · ");
  }

  // The page's own checks (static/js/deal-form.js): a deal whose tricks do not add up,
  // that lacks a choice, or whose rows are another declarer's is not kept on the phone to
  // be refused later; the form says why, at once, and stays as typed.
  function refusedAtEntry(form) {
    return Boolean(window.dealForm?.refuse(form));
  }

  function queueDeal(form, fields) {
    if (refusedAtEntry(form)) {
      return Promise.resolve();
    }
    const item = {
      table: tableOf(form),
      url: new URL(form.action, location.href).pathname,
      fields: Array.from(fields.entries()).filter((pair) => typeof pair[1] === "string"),
      words: dealWords(form),
      queuedAt: new Date().toISOString(),
      refused: null,
    };
    return keepDeal(item).then(() => {
      // The next deal is another write: it needs a key of its own.
      form.reset();
      hidden(form, "write_key").value = uuid4();
      form.dispatchEvent(new Event("change", { bubbles: true })); // deal-form.js: what is missing
      for (const p of form.closest("section")?.querySelectorAll(".no-connection") ?? []) {
        p.remove();
      }
      return showQueue(words.queued);
    });
  }

  // Offline already: the deal goes to the queue before htmx tries the network. Capturing
  // on the document runs before htmx's own listener on the form.
  document.addEventListener(
    "submit",
    (event) => {
      const form = event.target;
      if (!(form instanceof HTMLFormElement) || tableOf(form) === null) {
        return;
      }
      ensureWriteKey(form);
      const fields = new FormData(form, event.submitter || null);
      if (navigator.onLine || !isSave(fields)) {
        return;
      }
      event.preventDefault();
      event.stopImmediatePropagation();
      queueDeal(form, fields);
    },
    true,
  );

  // Online, but the request never got an answer: the same deal, as it was sent.
  function queueFailedSave(event) {
    const config = event.detail.requestConfig;
    const form = event.detail.elt;
    if (!config || !(form instanceof HTMLFormElement) || tableOf(form) === null) {
      return;
    }
    if (config.verb !== "post" || !isSave(config.formData)) {
      return;
    }
    queueDeal(form, config.formData);
  }

  document.addEventListener("htmx:sendError", queueFailedSave);
  document.addEventListener("htmx:timeout", queueFailedSave);

  // -- sending --------------------------------------------------------------------------------

  function cookie(name) {
    const pair = document.cookie.split("; ").find((c) => c.startsWith(`${name}=`));
    return pair ? decodeURIComponent(pair.slice(name.length + 1)) : "";
  }

  function post(item) {
    const body = new URLSearchParams(item.fields);
    // The form's token, or the cookie's: a sign-in since the deal was queued rotates it.
    const token = cookie("csrftoken");
    if (token) {
      body.set("csrfmiddlewaretoken", token);
    }
    return fetch(item.url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRFToken": token },
    });
  }

  // Stored: the answer names the table's new revision (X-Table-Revision) or, as the deal
  // view answers htmx, puts the new sheet in place (HX-Retarget: #sheet). Anything else is
  // a refusal, in the server's words.
  async function judge(response) {
    const revision = response.headers.get("X-Table-Revision");
    if (response.ok && (revision !== null || response.headers.get("HX-Retarget") === "#sheet")) {
      return { stored: true, revision: revision };
    }
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    // A form's errors, or a whole page's heading and lead (the 403 page, say).
    const errors = page.querySelectorAll('[role="alert"], .errorlist, .message.error');
    const said = errors.length ? [errors[0]] : page.querySelectorAll("main h1, main .lead");
    const text = Array.from(said, (e) => e.textContent.replace(/\s+/g, " ").trim()).join(" ");
    return { stored: false, message: text || `${response.status} ${response.statusText}` };
  }

  function field(item, name) {
    const pair = item.fields.find((p) => p[0] === name);
    return pair ? pair[1] : null;
  }

  function setField(item, name, value) {
    const pair = item.fields.find((p) => p[0] === name);
    if (pair) {
      pair[1] = String(value);
    }
  }

  // The deal after ``sent`` was drawn for the table before it; now it comes after it.
  function onTopOf(next, sent, revision) {
    if (revision !== null && field(next, "revision") !== null) {
      setField(next, "revision", revision);
    }
    const count = Number(field(sent, "count"));
    if (field(next, "count") !== null && field(sent, "count") !== null && !Number.isNaN(count)) {
      setField(next, "count", count + 1);
    }
  }

  // The form on the page, cleared while the deal waited, was drawn where the deal was:
  // it moves on with it.
  function formFollows(sent, revision) {
    document.querySelectorAll("form").forEach((form) => {
      if (tableOf(form) !== sent.table) {
        return;
      }
      const count = form.querySelector('input[name="count"]');
      if (count && count.value === field(sent, "count")) {
        count.value = String(Number(count.value) + 1);
      }
      const drawn = form.querySelector('input[name="revision"]');
      if (drawn && revision !== null && drawn.value === field(sent, "revision")) {
        drawn.value = revision;
      }
    });
  }

  let sending = false;

  // One sender at a time across the phone's tabs (the Web Locks API): two tabs sending the
  // same queue would send a deal twice, and one's refusal could bring back a deal the
  // other has just had stored.
  function sendQueue() {
    if (sending || !navigator.onLine) {
      return Promise.resolve();
    }
    if (!navigator.locks) {
      return sendQueueNow();
    }
    return navigator.locks.request("clubsite-outbox", { ifAvailable: true }, (lock) => {
      return lock ? sendQueueNow() : null; // another tab is sending
    });
  }

  async function sendQueueNow() {
    sending = true;
    let sent = 0;
    try {
      let items = await queued();
      while (items.length && !items[0].refused) {
        await showQueue(words.sending);
        const item = items[0];
        let outcome;
        try {
          outcome = await judge(await post(item));
        } catch {
          break; // still no connection: everything stays queued
        }
        if (!outcome.stored) {
          item.refused = outcome.message;
          await keepDeal(item);
          break;
        }
        await forgetDeal(item.id);
        sent += 1;
        formFollows(item, outcome.revision);
        const next = items[1];
        if (next && next.table === item.table && !next.refused) {
          onTopOf(next, item, outcome.revision);
          await keepDeal(next);
        }
        items = items.slice(1);
      }
    } finally {
      sending = false;
    }
    await showQueue(sent ? words.sent.replace("%(n)s", sent) : null);
    if (sent) {
      refreshSheet();
    }
  }

  // The live sheet polls by itself; this asks at once, so the deals appear now.
  function refreshSheet() {
    const sheet = document.getElementById("sheet");
    if (sheet && window.htmx && sheet.getAttribute("hx-get")) {
      window.htmx.ajax("GET", sheet.getAttribute("hx-get"), {
        target: "#sheet",
        swap: "outerHTML",
      });
    }
  }

  // -- what the page shows --------------------------------------------------------------------

  let element = null; // the outbox's lines, kept across the htmx swaps of the form

  // Just above the deal form, where the thumb is; on a page without one, atop the page.
  function box() {
    if (!element) {
      element = document.createElement("div");
      element.id = "outbox";
      element.className = "outbox";
      element.setAttribute("role", "status");
    }
    const form = document.querySelector("#deal-form form");
    if (form && element.nextElementSibling !== form) {
      form.before(element);
    } else if (!form && !element.isConnected) {
      document.querySelector("main")?.prepend(element);
    }
    return element;
  }

  function refusal(item) {
    const part = document.createElement("div");
    part.className = "message error outbox-refused";
    part.setAttribute("role", "alert");
    part.dataset.id = item.id;
    const said = document.createElement("p");
    said.textContent = words.refused.replace("%(message)s", item.refused);
    const deal = document.createElement("p");
    deal.className = "outbox-deal";
    deal.textContent = words.deal.replace("%(deal)s", item.words);
    const buttons = document.createElement("p");
    buttons.className = "buttons";
    [
      ["outbox-retry", words.retry, ""],
      ["outbox-discard", words.discard, "secondary"],
    ].forEach((b) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `${b[0]} ${b[2]}`.trim();
      button.textContent = b[1];
      buttons.append(button);
    });
    part.append(said, deal, buttons);
    return part;
  }

  let waiting = false; // deals in the queue that may be sent

  async function showQueue(note) {
    const items = await queued();
    waiting = items.length > 0 && !items.some((item) => item.refused);
    const shown = note === null ? (waiting ? words.queued : null) : note;
    if (!items.length && !shown) {
      element?.remove();
      return;
    }
    box().replaceChildren();
    if (shown) {
      const p = document.createElement("p");
      const tone = shown === words.sending ? "" : items.length ? " error" : " success";
      p.className = `message${tone}`;
      p.textContent = shown.replace("%(n)s", items.length);
      element.append(p);
    }
    element.append(...items.filter((item) => item.refused).map(refusal));
  }

  // -- the member's answer to a refusal -------------------------------------------------------

  // Sent again on top of the sheet as it stands now (its revision and deal count): the
  // member has seen what changed and still wants this deal.
  function asOfNow(item) {
    const sheet = document.getElementById("sheet");
    if (sheet?.dataset.revision) {
      setField(item, "revision", sheet.dataset.revision);
    }
    const latest = sheet?.querySelector(".deal-log > li");
    setField(item, "count", latest ? latest.value : 0);
    item.refused = null;
    return item;
  }

  document.addEventListener("click", async (event) => {
    const button = event.target.closest("#outbox button");
    if (!button) {
      return;
    }
    const id = Number(button.closest(".outbox-refused").dataset.id);
    const item = (await queued()).find((i) => i.id === id);
    if (!item) {
      return;
    }
    if (button.classList.contains("outbox-discard")) {
      if (!window.confirm(words.discardConfirm)) {
        return;
      }
      await forgetDeal(id);
    } else {
      await keepDeal(asOfNow(item));
    }
    await showQueue(null);
    sendQueue();
  });

  // -- when to send ---------------------------------------------------------------------------

  window.addEventListener("online", sendQueue);
  // Any answer from the server (the live sheet's poll, every two seconds) shows the
  // connection is back, even where the browser never noticed it was gone.
  document.addEventListener("htmx:afterRequest", (event) => {
    if (event.detail.successful && waiting) {
      sendQueue();
    }
  });
  // htmx swaps the deal form after a save: the queue's line goes back above the new one.
  document.addEventListener("htmx:afterSettle", () => {
    if (element?.childElementCount) {
      box();
    }
  });
  setInterval(() => {
    queued().then((items) => {
      if (items.length && !items[0].refused) {
        sendQueue();
      }
    });
  }, RETRY_SECONDS * 1000);
  showQueue(null).then(sendQueue);
})();
