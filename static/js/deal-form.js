// The deal form's two helpers (templates/scoring/_deal_fields.html), both optional: the
// server checks every deal again, and without this file the form works the same, with a
// tap or two more.
// 1. Tricks add up to ten: once every player but the last has his tricks, the last gets the
//    rest (a 4-player pass-out: ten less the dealer's widow tricks).
// 2. A line above Save says what is still missing: a choice not made, tricks that do not
//    add up («распределите взятки: 9 из 10»).
(() => {
  "use strict";

  function picked(group) {
    const input = group?.querySelector("input:checked");
    return input ? Number(input.value) : null;
  }

  function pads(tricks) {
    return Array.from(tricks.querySelectorAll("fieldset.trick-pad"));
  }

  function total(tricks) {
    return Number(tricks.dataset.total) - (picked(tricks.querySelector("fieldset.widow")) || 0);
  }

  function shown(element) {
    return element.getClientRects().length > 0;
  }

  function deriveLast(tricks, changed) {
    const all = pads(tricks);
    const last = all[all.length - 1];
    if (all.length < 2 || changed === last) {
      return;
    }
    const others = all.slice(0, -1).map(picked);
    if (others.includes(null)) {
      return;
    }
    const rest = total(tricks) - others.reduce((a, b) => a + b, 0);
    const input = last.querySelector(`input[value="${rest}"]`);
    if (input) {
      input.checked = true;
    } else {
      // More than ten already: no number fits, the line above Save says so.
      const old = last.querySelector("input:checked");
      if (old) {
        old.checked = false;
      }
    }
  }

  function missing(form, line) {
    const parts = [];
    const unchosen = Array.from(form.querySelectorAll("fieldset[data-needed]"))
      .filter((group) => shown(group) && !group.querySelector("input:checked"))
      .map((group) => group.querySelector("legend").textContent.trim());
    if (unchosen.length) {
      parts.push(line.dataset.choose.replace("%(fields)s", unchosen.join(", ")));
    }
    form.querySelectorAll("fieldset.tricks[data-total]").forEach((tricks) => {
      if (!shown(tricks)) {
        return;
      }
      const sum = pads(tricks).reduce((a, pad) => a + (picked(pad) || 0), 0);
      const wanted = total(tricks);
      if (sum !== wanted) {
        parts.push(line.dataset.tricks.replace("%(sum)s", sum).replace("%(total)s", wanted));
      }
    });
    return parts;
  }

  function describe(form) {
    const line = form.querySelector(".deal-missing");
    if (!line) {
      return;
    }
    const parts = missing(form, line);
    line.textContent = parts.join(" · ");
    line.hidden = parts.length === 0;
  }

  document.addEventListener("change", (event) => {
    const form = event.target.closest("form");
    if (!form?.querySelector(".deal-missing")) {
      return;
    }
    const tricks = event.target.closest("fieldset.tricks[data-total]");
    if (tricks) {
      deriveLast(tricks, event.target.closest("fieldset.trick-pad"));
    }
    describe(form);
  });

  function describeAll() {
    document.querySelectorAll("form").forEach(describe);
  }

  document.addEventListener("DOMContentLoaded", describeAll);
  // A form redrawn or saved by htmx.
  document.addEventListener("htmx:load", describeAll);
})();
