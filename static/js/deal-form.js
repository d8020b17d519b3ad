// The deal form's helpers (templates/scoring/_deal_fields.html), all optional: the server
// checks every deal again, and without this file the form works the same, with a tap or
// two more («Show fields» redraws it).
// 1. The kind and the declarer switch the form in the page, offline too: the server draws
//    every kind's rows and every player's answers and tricks (data-kinds, data-player);
//    this shows those of the deal being entered, keeps the defenders in speaking order,
//    disables what is hidden (it is not sent) and says which rows are shown (`drawn`).
// 2. Tricks add up to ten: once every player but the last has his tricks, the last gets the
//    rest (a 4-player pass-out: ten less the dealer's widow tricks).
// 3. A line above Save says what is still missing (a choice not made, tricks that do not
//    add up: «распределите взятки: 9 из 10»), once the member has begun the deal; the
//    outbox asks `window.dealForm.refuse` before it keeps a deal on the phone.
// 4. After a save: «Раздача N записана» is announced, earlier messages go at the next
//    action, and the focus goes back to the form's first control.
(() => {
  "use strict";

  const BY_DECLARER = ["game", "misere"]; // PreferansDealForm: ROWS_BY_DECLARER

  function picked(group) {
    const input = group?.querySelector("input:checked:enabled");
    return input ? Number(input.value) : null;
  }

  function chosen(form, name) {
    return form.querySelector(`input[name="${name}"]:checked`)?.value ?? null;
  }

  function pads(tricks) {
    return Array.from(tricks.querySelectorAll("fieldset.trick-pad")).filter((pad) => !pad.hidden);
  }

  function total(tricks) {
    const widow = tricks.querySelector("fieldset.widow");
    return Number(tricks.dataset.total) - ((widow && !widow.hidden && picked(widow)) || 0);
  }

  function shown(element) {
    return element.getClientRects().length > 0;
  }

  // -- 1. the kind and the declarer, in the page ---------------------------------------------

  function kindOf(form) {
    return chosen(form, "kind") || "game";
  }

  function declarerOf(form) {
    const choice = form.querySelector(".declarer-choice");
    return chosen(form, "declarer") || choice?.dataset.firstHand || "";
  }

  function drawnFor(kind, declarer) {
    return `${kind}:${BY_DECLARER.includes(kind) ? declarer : ""}`;
  }

  // The defenders in the order they speak: clockwise after the declarer (Pulka.defenders).
  function placeAnswers(answers, declarer) {
    const seats = answers.dataset.seats.split("|");
    const at = seats.indexOf(declarer);
    const order = at < 0 ? seats : [...seats.slice(at + 1), ...seats.slice(0, at), declarer];
    const end = answers.querySelector(":scope > .errorlist");
    const rows = order
      .map((name) => answers.querySelector(`:scope > fieldset[data-player="${CSS.escape(name)}"]`))
      .filter((row) => row !== null);
    rows.forEach((row) => {
      row.hidden = row.dataset.player === declarer;
      if (row.hidden) {
        // The declarer does not answer: a whist left in his row would show the tricks.
        const pass = row.querySelector('input[value="pass"]');
        if (pass) {
          pass.checked = true;
        }
      }
    });
    // Moved only when out of order: a row taken out and put back loses the focus.
    const now = Array.from(answers.querySelectorAll(":scope > fieldset[data-player]"));
    if (rows.some((row, i) => now[i] !== row)) {
      rows.forEach((row) => {
        answers.insertBefore(row, end);
      });
    }
  }

  function apply(form) {
    const drawn = form.querySelector('input[name="drawn"]');
    if (!drawn) {
      return; // a form the server redraws (Boston)
    }
    const kind = kindOf(form);
    const declarer = declarerOf(form);
    form.querySelectorAll("[data-kinds]").forEach((part) => {
      part.hidden = !part.dataset.kinds.split(" ").includes(kind);
    });
    const answers = form.querySelector("fieldset.answers[data-seats]");
    if (answers) {
      placeAnswers(answers, declarer);
    }
    const tricks = form.querySelector("fieldset.tricks");
    if (tricks) {
      tricks.querySelectorAll("fieldset.trick-pad").forEach((pad) => {
        pad.hidden = kind === "misere" && pad.dataset.player !== declarer;
      });
      if (kind === "misere") {
        tricks.dataset.needed = "";
        delete tricks.dataset.total;
      } else {
        delete tricks.dataset.needed;
        tricks.dataset.total = "10";
      }
      tricks.classList.toggle(
        "when-whisted",
        kind === "game" && !tricks.querySelector(".errorlist"),
      );
    }
    // What is hidden is not sent; nor a game's tricks while nobody whists.
    const whisted = answers?.querySelector('fieldset:not([hidden]) input[value="whist"]:checked');
    form.querySelectorAll("input").forEach((input) => {
      if (input.type === "hidden") {
        return;
      }
      const unplayed = kind === "game" && !whisted && input.closest("fieldset.tricks") !== null;
      input.disabled = input.closest("[hidden]") !== null || unplayed;
    });
    drawn.value = drawnFor(kind, declarer);
  }

  // -- 2. the last player's tricks -------------------------------------------------------------

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

  // -- 3. what is missing ----------------------------------------------------------------------

  function missing(form, line) {
    const parts = [];
    const unchosen = Array.from(form.querySelectorAll("fieldset[data-needed]"))
      .filter((group) => shown(group) && !group.querySelector("input:checked:enabled"))
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
    const drawn = form.querySelector('input[name="drawn"]');
    if (drawn && line.dataset.rows && drawn.value !== drawnFor(kindOf(form), declarerOf(form))) {
      parts.push(line.dataset.rows);
    }
    return parts;
  }

  // Nothing is said before the member has touched the form: a fresh form lacks the contract
  // by design, and an orange line then would read as a fault.
  function describe(form) {
    const line = form.querySelector(".deal-missing");
    if (!line) {
      return;
    }
    const parts = form.dataset.touched ? missing(form, line) : [];
    line.textContent = parts.join(" · ");
    line.hidden = parts.length === 0;
  }

  // The outbox keeps a deal on the phone only when this finds nothing wrong with it; else
  // the line above Save says why, and nothing is kept.
  function refuse(form) {
    const line = form.querySelector(".deal-missing");
    if (!line) {
      return false;
    }
    apply(form);
    const parts = missing(form, line);
    if (!parts.length) {
      return false;
    }
    form.dataset.touched = "1";
    line.textContent = line.dataset.refused.replace("%(problems)s", parts.join(" · "));
    line.hidden = false;
    return true;
  }

  window.dealForm = { refuse: refuse, apply: apply };

  // -- 4. after a save -------------------------------------------------------------------------

  // The messages of an earlier action (a deal saved, corrected, undone) go at the next one.
  function clearMessages() {
    document
      .querySelectorAll("main > .messages, #deal-form .deal-saved, #table-actions .undo-result")
      .forEach((message) => {
        message.remove();
      });
  }

  function firstControl(form) {
    return (
      form.querySelector("fieldset.kind input:checked") ||
      form.querySelector("input:not([type=hidden]):not(:disabled), button")
    );
  }

  document.addEventListener("change", (event) => {
    const form = event.target.closest("form");
    if (!form?.querySelector(".deal-missing")) {
      return;
    }
    if (event.target === form) {
      delete form.dataset.touched; // the outbox cleared it for the next deal
    } else {
      form.dataset.touched = "1";
      clearMessages();
    }
    apply(form);
    const tricks = event.target.closest("fieldset.tricks[data-total]");
    if (tricks) {
      deriveLast(tricks, event.target.closest("fieldset.trick-pad"));
    }
    describe(form);
  });

  document.addEventListener("submit", (event) => {
    if (event.target.querySelector?.(".deal-missing")) {
      clearMessages();
    }
  });

  function prepare(root) {
    const forms = root.matches?.("form") ? [root] : Array.from(root.querySelectorAll("form"));
    forms.forEach((form) => {
      if (form.querySelector(".deal-missing")) {
        apply(form);
        describe(form);
      }
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    prepare(document);
  });
  // A form redrawn or saved by htmx (not the live sheet's poll: nothing of a form there).
  document.addEventListener("htmx:load", (event) => {
    prepare(event.detail?.elt || document);
  });

  // A deal saved: say so where the member looks, in a live region that is already on the
  // page (a region that arrives with its words is not read out), and put the focus on the
  // form's first control for the next deal.
  document.addEventListener("htmx:afterSettle", () => {
    // An undo redraws the table: its result, at the Undo button, takes the focus.
    const undone = document.querySelector("#table-actions .undo-result");
    if (undone && !undone.dataset.announced) {
      undone.dataset.announced = "1";
      undone.focus();
    }
    const said = document.querySelector("#deal-form .deal-saved");
    if (!said || said.dataset.announced) {
      return;
    }
    said.dataset.announced = "1";
    const words = said.textContent;
    said.textContent = "";
    setTimeout(() => {
      said.textContent = words;
    }, 50);
    const form = said.closest("#deal-form")?.querySelector("form");
    const first = form && firstControl(form);
    if (first) {
      first.focus({ preventScroll: true });
    }
  });
})();
