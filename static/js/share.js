// The table page's share button (templates/scoring/table_detail.html): the phone's own
// share sheet where the browser has one (the Web Share API), otherwise the link copied to
// the clipboard with a message saying so. Without JavaScript the button stays hidden and the
// link under "Link and QR code" is there to copy by hand. A file, not inline script: the
// site's Content Security Policy allows no inline script. The messages come translated in
// the button's data attributes.
(() => {
  "use strict";

  function reveal(root) {
    root.querySelectorAll("button.share-button[hidden]").forEach((button) => {
      button.hidden = false;
    });
  }

  function say(button, text) {
    const status = button.parentElement.querySelector(".share-status");
    if (status) {
      status.textContent = text;
    }
  }

  // Where copying is refused (no clipboard outside https, a denied permission): open the
  // link and select it, so that one more gesture copies it.
  function selectLink() {
    const details = document.querySelector("details.share");
    const link = details?.querySelector(".share-link");
    if (!link) {
      return;
    }
    details.open = true;
    const range = document.createRange();
    range.selectNodeContents(link);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function copyLink(button) {
    const copied = navigator.clipboard
      ? navigator.clipboard.writeText(button.dataset.shareUrl)
      : Promise.reject(new Error("no clipboard"));
    copied.then(
      () => {
        say(button, button.dataset.copied);
      },
      () => {
        selectLink();
        say(button, button.dataset.copyFailed);
      },
    );
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button.share-button");
    if (!button) {
      return;
    }
    say(button, "");
    if (!navigator.share) {
      copyLink(button);
      return;
    }
    navigator
      .share({ title: button.dataset.shareTitle, url: button.dataset.shareUrl })
      .catch((error) => {
        // AbortError: the member closed the share sheet, which needs no answer.
        if (error.name !== "AbortError") {
          copyLink(button);
        }
      });
  });

  reveal(document); // a deferred script runs once the page is parsed
  // htmx swaps the table's body after a write: its new button is hidden again.
  document.addEventListener("htmx:load", (event) => {
    reveal(event.target);
  });
})();
