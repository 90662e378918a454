/* The widget areas page (apps/studio/views/widgets.py). Without this script every Move up / Move down button posts one
   move and the page comes back reordered. With it, moves happen in place, are announced in the live region, and the
   area's "Save order" button posts its whole order once, in the REST reorder's shape ({"widgetIds": [...]}). */
(() => {
  "use strict";

  const announcer = document.getElementById("widget-announce");
  const { csrfToken, announcer: announcerFor } = window.cmsStudio;
  const say = announcer ? announcerFor(announcer) : () => {};

  function enable(list) {
    const area = list.closest(".widget-area");
    const saveButton = area.querySelector("[data-save-order]");
    if (!saveButton) return;
    saveButton.closest(".widget-save").hidden = false;
    const items = () => [...list.children];

    function tidy() {
      for (const item of items()) {
        for (const button of item.querySelectorAll("button[data-move]")) {
          const useless = button.dataset.move === "up" ? !item.previousElementSibling : !item.nextElementSibling;
          // aria-disabled rather than disabled: the focus stays on a button that has just become useless.
          button.disabled = false;
          button.setAttribute("aria-disabled", String(useless));
        }
      }
    }

    list.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-move]");
      if (!button) return;
      event.preventDefault();
      if (button.getAttribute("aria-disabled") === "true") return;
      const item = button.closest("li");
      if (button.dataset.move === "up") list.insertBefore(item, item.previousElementSibling);
      else list.insertBefore(item.nextElementSibling, item);
      tidy();
      button.focus();
      saveButton.disabled = false;
      const position = items().indexOf(item) + 1;
      say(`${item.dataset.label} moved ${button.dataset.move}: position ${position} of ${items().length}. Save order to keep it.`);
    });

    saveButton.addEventListener("click", async () => {
      saveButton.disabled = true;
      say("Saving the order…");
      try {
        const response = await fetch(list.dataset.orderUrl, {
          method: "POST",
          credentials: "same-origin",
          headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
          body: JSON.stringify({ widgetIds: items().map((item) => item.dataset.id) }),
        });
        const body = await response.json().catch(() => null);
        if (!response.ok) throw new Error(body?.error?.message || `Saving failed (status ${response.status}).`);
        say("Order saved.");
      } catch (error) {
        saveButton.disabled = false;
        say(`The order was not saved: ${error.message}`);
      }
    });
    tidy();
  }

  function start() {
    if (!announcer) return;
    document.querySelectorAll("ol.widget-list[data-order-url]").forEach(enable);
    // Leaving with moves not saved loses them: the browser asks first.
    window.addEventListener("beforeunload", (event) => {
      if (document.querySelector("[data-save-order]:not(:disabled)")) event.preventDefault();
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
