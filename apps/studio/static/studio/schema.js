// The schema builder's enhancements (apps/studio/templates/studio/schema/): a live check of slugs against the rules
// the page states, showing only the settings the chosen field type takes, and reordering fields by drag and by the
// Move up/down buttons before saving the whole order in one request. Without this file every page still works: the
// service checks slugs, settings of other types are ignored, and each move button posts its move.
"use strict";

(() => {
  const slugFrom = (text) =>
    text
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^[^a-z]+/, "")
      .replace(/_+$/, "")
      .slice(0, 63);

  function enhanceSlug(input) {
    const rules = new RegExp(input.dataset.slugRules);
    const taken = new Set((input.dataset.slugTaken || "").split(" ").filter(Boolean));
    const reserved = new Set((input.dataset.slugReserved || "").split(" ").filter(Boolean));
    const output = document.getElementById(`${input.id}-check`);
    const source = document.getElementById(input.dataset.slugFrom);
    const check = () => {
      const slug = input.value;
      let message = "";
      let good = false;
      if (!slug) message = "";
      else if (!rules.test(slug)) message = "Not valid yet: lowercase letters, digits and _, starting with a letter.";
      else if (slug.length > 63) message = "Too long: at most 63 characters.";
      else if (reserved.has(slug)) message = `“${slug}” is reserved for the entry's own data.`;
      else if (taken.has(slug)) message = `“${slug}” is already taken here.`;
      else {
        message = `“${slug}” fits the rules.`;
        good = true;
      }
      if (output) {
        output.textContent = message;
        output.classList.toggle("error", Boolean(slug) && !good);
      }
    };
    input.addEventListener("input", () => {
      input.dataset.slugEdited = input.value ? "true" : "";
      check();
    });
    if (source) {
      source.addEventListener("input", () => {
        if (input.dataset.slugEdited === "true") return;
        input.value = slugFrom(source.value);
        check();
      });
    }
    check();
  }

  function enhanceTypeChoice(select) {
    const form = select.form;
    const show = () => {
      for (const wrapper of form.querySelectorAll("[data-for-types]")) {
        const applies = wrapper.dataset.forTypes.split(" ").includes(select.value);
        wrapper.hidden = !applies;
        // Hidden settings are not sent: a value typed for another type does not travel with this one.
        for (const control of wrapper.querySelectorAll("input, select, textarea")) control.disabled = !applies;
      }
    };
    for (const hint of form.querySelectorAll("[data-no-js-hint], [data-types-hint]")) hint.hidden = true;
    select.addEventListener("change", show);
    show();
  }

  function enhanceOrder(form) {
    const list = form.querySelector("ol");
    const status = form.querySelector("[data-order-status]");
    const items = () => [...list.children];
    const refresh = () => {
      const all = items();
      all.forEach((item, index) => {
        item.querySelector("[data-move=up]").disabled = index === 0;
        item.querySelector("[data-move=down]").disabled = index === all.length - 1;
      });
    };
    const announce = (item) => {
      const position = items().indexOf(item) + 1;
      status.textContent = `${item.dataset.label} moved to position ${position} of ${items().length}. Save the order to keep it.`;
      form.classList.add("order-changed");
    };
    list.addEventListener("click", (event) => {
      const button = event.target.closest("[data-move]");
      if (!button) return;
      event.preventDefault();
      const item = button.closest("li");
      if (button.dataset.move === "up" && item.previousElementSibling) {
        list.insertBefore(item, item.previousElementSibling);
      } else if (button.dataset.move === "down" && item.nextElementSibling) {
        list.insertBefore(item.nextElementSibling, item);
      } else {
        return;
      }
      refresh();
      // Keep the keyboard where it was; at either end the other button is the one still usable.
      const other = item.querySelector(`[data-move=${button.dataset.move === "up" ? "down" : "up"}]`);
      (button.disabled ? other : button).focus();
      announce(item);
    });
    let dragged = null;
    list.addEventListener("dragstart", (event) => {
      dragged = event.target.closest("li");
      if (!dragged) return;
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", dragged.dataset.slug);
      dragged.classList.add("dragging");
    });
    list.addEventListener("dragover", (event) => {
      const over = event.target.closest("li");
      if (!dragged || !over || over === dragged) return;
      event.preventDefault();
      const box = over.getBoundingClientRect();
      const after = event.clientY > box.top + box.height / 2;
      list.insertBefore(dragged, after ? over.nextElementSibling : over);
    });
    list.addEventListener("drop", (event) => {
      if (dragged) event.preventDefault();
    });
    list.addEventListener("dragend", () => {
      if (!dragged) return;
      dragged.classList.remove("dragging");
      refresh();
      announce(dragged);
      dragged = null;
    });
  }

  const start = () => {
    document.querySelectorAll("input[data-slug-rules]").forEach(enhanceSlug);
    document.querySelectorAll("select[data-field-type]").forEach(enhanceTypeChoice);
    document.querySelectorAll("form[data-field-order]").forEach(enhanceOrder);
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
