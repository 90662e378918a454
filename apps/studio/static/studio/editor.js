// The entry editor's enhancements (apps/studio/views/editor.py). The form works without this file; with it:
// slugs follow the title until edited by hand, length counters, JSON is checked before it is sent, bylines are
// reordered in place, and leaving the page with unsaved changes asks first.
(() => {
  "use strict";
  const form = document.querySelector("form[data-editor]");
  if (!form) return;

  // A form the server sent back unsaved (errors, a conflict, a byline moved) already holds unsaved changes.
  let dirty = form.hasAttribute("data-unsaved");
  let submitting = false;

  // Lowercase, accents dropped, anything but letters and digits becomes a hyphen (the server normalises again).
  const slugify = (text) =>
    text
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 200);

  // --- slugs follow their source until edited ---
  for (const target of form.querySelectorAll("[data-slug-source]")) {
    const source = document.getElementById(target.dataset.slugSource);
    if (!source) continue;
    if (target.value) target.dataset.slugEdited = "true";
    target.addEventListener("input", () => {
      target.dataset.slugEdited = target.value ? "true" : "";
    });
    source.addEventListener("input", () => {
      if (target.dataset.slugEdited !== "true") target.value = slugify(source.value);
    });
  }

  // --- counters for fields with a maximum length ---
  for (const counter of form.querySelectorAll("[data-counter-for]")) {
    const input = document.getElementById(counter.dataset.counterFor);
    if (!input) continue;
    const max = Number(input.dataset.maxlength);
    const update = () => {
      const used = [...input.value].length;
      counter.textContent = `${used} of at most ${max} characters`;
      counter.classList.toggle("over", used > max);
    };
    input.addEventListener("input", update);
    update();
  }

  // --- JSON must parse before the form is sent ---
  const jsonProblem = (area) => {
    const text = area.value.trim();
    if (!text) return "";
    try {
      JSON.parse(text);
      return "";
    } catch (error) {
      return `Not valid JSON: ${error.message}. Fix it or clear the box.`;
    }
  };
  const showJsonProblem = (area, problem) => {
    const id = `${area.id}-jsoncheck`;
    let note = document.getElementById(id);
    if (!problem) {
      if (note) note.remove();
      if (!area.closest(".field")?.querySelector(".error:not([data-jsoncheck])")) area.removeAttribute("aria-invalid");
      return;
    }
    if (!note) {
      note = document.createElement("p");
      note.className = "error";
      note.id = id;
      note.dataset.jsoncheck = "true";
      note.setAttribute("role", "alert");
      area.insertAdjacentElement("afterend", note);
      const described = (area.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      if (!described.includes(id)) area.setAttribute("aria-describedby", [...described, id].join(" "));
    }
    note.textContent = problem;
    area.setAttribute("aria-invalid", "true");
  };
  const jsonAreas = () => form.querySelectorAll("textarea[data-json], textarea[data-portable-text]");
  for (const area of jsonAreas()) {
    area.addEventListener("change", () => showJsonProblem(area, jsonProblem(area)));
  }

  // --- bylines: move and remove in place instead of a round trip ---
  const list = form.querySelector(".byline-list");
  const renumber = () => {
    if (!list) return;
    const rows = [...list.children];
    rows.forEach((row, index) => {
      for (const button of row.querySelectorAll("button[name=_bylines]")) {
        const verb = button.value.split(":")[0];
        button.value = `${verb}:${index}`;
        if (verb === "up") button.disabled = index === 0;
        if (verb === "down") button.disabled = index === rows.length - 1;
      }
    });
  };
  if (list) {
    list.addEventListener("click", (event) => {
      const button = event.target.closest("button[name=_bylines]");
      if (!button) return;
      event.preventDefault();
      const row = button.closest("li");
      const verb = button.value.split(":")[0];
      if (verb === "up" && row.previousElementSibling) row.previousElementSibling.before(row);
      if (verb === "down" && row.nextElementSibling) row.nextElementSibling.after(row);
      if (verb === "remove") {
        const next = row.nextElementSibling || row.previousElementSibling;
        row.remove();
        next?.querySelector("button:not([disabled])")?.focus();
      } else {
        button.focus();
      }
      renumber();
      dirty = true;
    });
  }

  // --- leaving with unsaved changes asks first ---
  form.addEventListener("input", () => {
    dirty = true;
  });
  form.addEventListener("change", () => {
    dirty = true;
  });
  form.addEventListener("submit", (event) => {
    const button = event.submitter;
    const leaves = button?.hasAttribute("data-leaves-edits");
    if (!leaves && !(button && button.name === "_bylines")) {
      for (const area of jsonAreas()) {
        const problem = jsonProblem(area);
        showJsonProblem(area, problem);
        if (problem) {
          event.preventDefault();
          area.focus();
          return;
        }
      }
    }
    if (leaves && dirty && !window.confirm(`${button.textContent.trim()} without saving your changes?`)) {
      event.preventDefault();
      return;
    }
    submitting = true;
  });
  window.addEventListener("beforeunload", (event) => {
    if (dirty && !submitting) {
      event.preventDefault();
      event.returnValue = "";
    }
  });
})();
