// The settings page's web push buttons (templates/members/member_settings.html): subscribe
// this device through the site's service worker (sw-register.js) with the club's VAPID
// public key, and send the subscription to the site; or unsubscribe it and tell the site.
// A file, not inline script: the site's Content Security Policy allows none. Where the
// browser has no push (or no service worker) the buttons stay hidden and the page says so.
(() => {
  "use strict";

  const subscribeButton = document.querySelector("[data-push-subscribe]");
  const unsubscribeButton = document.querySelector("[data-push-unsubscribe]");
  const status = document.querySelector("[data-push-status]");
  if (!subscribeButton || !unsubscribeButton || !status) {
    return;
  }
  const words = {
    unsupported: status.dataset.unsupported || "",
    refused: status.dataset.refused || "",
    failed: status.dataset.failed || "",
  };
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
    status.textContent = words.unsupported;
    return;
  }
  subscribeButton.closest("[hidden]")?.removeAttribute("hidden");

  function cookie(name) {
    const pair = document.cookie.split("; ").find((c) => c.startsWith(`${name}=`));
    return pair ? decodeURIComponent(pair.slice(name.length + 1)) : "";
  }

  // The VAPID public key, base64url as the server keeps it, as the bytes the browser needs.
  function keyBytes(key) {
    const base64 = (key + "=".repeat((4 - (key.length % 4)) % 4))
      .replace(/-/g, "+")
      .replace(/_/g, "/");
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  }

  async function send(url, body) {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": cookie("csrftoken") },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    status.textContent = answer.message || answer.error || words.failed;
    return response.ok;
  }

  subscribeButton.addEventListener("click", async () => {
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        status.textContent = words.refused;
        return;
      }
      const registration = await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(subscribeButton.dataset.key),
      });
      await send(subscribeButton.dataset.url, subscription.toJSON());
    } catch {
      status.textContent = words.failed;
    }
  });

  unsubscribeButton.addEventListener("click", async () => {
    try {
      const registration = await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.getSubscription();
      if (!subscription) {
        status.textContent = words.failed;
        return;
      }
      const endpoint = subscription.endpoint;
      await subscription.unsubscribe();
      await send(unsubscribeButton.dataset.url, { endpoint });
    } catch {
      status.textContent = words.failed;
    }
  });
})();
