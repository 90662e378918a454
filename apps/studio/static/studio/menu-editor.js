/* The menu editor (apps/studio/views/menus.py). Without this script every Move up / Move down / Indent / Outdent
   button posts one move and the page comes back reordered. With it, moves (buttons or drag and drop) happen in place,
   are announced in the live region, and "Save order" posts the whole tree once, in the REST reorder's shape
   ({"items": [{id, parentId, sortOrder}]}). It also turns the entry id box into a search over every collection
   (the pick/entries JSON of pickers.py), showing each entry's title and collection. */
(() => {
  "use strict";

  const tree = document.getElementById("menu-tree");
  const saveButton = document.getElementById("menu-save");
  const announcer = document.getElementById("menu-announce");
  const { csrfToken, announcer: announcerFor } = window.cmsStudio;
  const say = announcer ? announcerFor(announcer) : () => {};

  const labelOf = (item) => item.dataset.label;
  const itemsIn = (list) => [...list.children].filter((node) => node.matches("li.menu-item"));
  const childList = (item, create = false) => {
    let list = [...item.children].find((node) => node.matches("ol.menu-tree"));
    if (!list && create) {
      list = document.createElement("ol");
      list.className = "menu-tree";
      item.append(list);
    }
    return list;
  };
  const parentItem = (item) => item.parentElement.closest("li.menu-item");

  function possible(item) {
    const moves = new Set();
    if (item.previousElementSibling) moves.add("up").add("indent");
    if (item.nextElementSibling) moves.add("down");
    if (parentItem(item)) moves.add("outdent");
    return moves;
  }

  function tidy() {
    // Empty sub-lists go (an empty list is noise to a screen reader); every button says whether it can act.
    for (const list of tree.querySelectorAll("ol.menu-tree")) if (!list.children.length) list.remove();
    for (const item of tree.querySelectorAll("li.menu-item")) {
      const moves = possible(item);
      for (const button of item.querySelector(".menu-item-row").querySelectorAll("button[data-move]")) {
        // aria-disabled rather than disabled: the focus stays on a button that has just become useless.
        button.disabled = false;
        button.setAttribute("aria-disabled", String(!moves.has(button.dataset.move)));
      }
    }
  }

  function where(item) {
    const siblings = itemsIn(item.parentElement);
    const parent = parentItem(item);
    const place = parent ? `inside ${labelOf(parent)}` : "at the top level";
    return `position ${siblings.indexOf(item) + 1} of ${siblings.length} ${place}`;
  }

  function changed(message) {
    tidy();
    saveButton.disabled = false;
    say(`${message}. Save order to keep it.`);
  }

  function move(item, how) {
    if (!possible(item).has(how)) return false;
    const previous = item.previousElementSibling;
    if (how === "up") item.parentElement.insertBefore(item, previous);
    else if (how === "down") item.parentElement.insertBefore(item.nextElementSibling, item);
    else if (how === "indent") childList(previous, true).append(item);
    else parentItem(item).after(item);
    const verb = { up: "moved up", down: "moved down", indent: "indented", outdent: "outdented" }[how];
    changed(`${labelOf(item)} ${verb}: ${where(item)}`);
    return true;
  }

  function order() {
    const items = [];
    const walk = (list, parentId) => {
      itemsIn(list).forEach((item, index) => {
        items.push({ id: item.dataset.id, parentId, sortOrder: index });
        const sub = childList(item);
        if (sub) walk(sub, item.dataset.id);
      });
    };
    walk(tree, null);
    return items;
  }

  async function save() {
    saveButton.disabled = true;
    say("Saving the order…");
    try {
      const response = await fetch(tree.dataset.orderUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify({ items: order() }),
      });
      const body = await response.json().catch(() => null);
      if (!response.ok) throw new Error(body?.error?.message || `Saving failed (status ${response.status}).`);
      say("Order saved.");
    } catch (error) {
      saveButton.disabled = false;
      say(`The order was not saved: ${error.message}`);
    }
  }

  /* --- drag and drop: the upper third of a row drops before it, the lower third after it, the middle inside it. */
  let dragged = null;
  const DROP = ["drop-before", "drop-inside", "drop-after"];
  const clearDrop = () => tree.querySelectorAll(".drop-before, .drop-inside, .drop-after").forEach((node) => node.classList.remove(...DROP));
  const zone = (row, event) => {
    const box = row.getBoundingClientRect();
    const share = (event.clientY - box.top) / box.height;
    return share < 1 / 3 ? "before" : share > 2 / 3 ? "after" : "inside";
  };

  function enableDragging() {
    for (const row of tree.querySelectorAll(".menu-item-row")) row.draggable = true;
    tree.addEventListener("dragstart", (event) => {
      const row = event.target.closest?.(".menu-item-row");
      if (!row) return;
      dragged = row.parentElement;
      dragged.classList.add("dragging");
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", dragged.dataset.id);
    });
    tree.addEventListener("dragover", (event) => {
      const row = event.target.closest?.(".menu-item-row");
      if (!dragged || !row) return;
      const target = row.parentElement;
      if (target === dragged || dragged.contains(target)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
      clearDrop();
      target.classList.add(`drop-${zone(row, event)}`);
    });
    tree.addEventListener("dragleave", (event) => {
      if (!tree.contains(event.relatedTarget)) clearDrop();
    });
    tree.addEventListener("drop", (event) => {
      const row = event.target.closest?.(".menu-item-row");
      if (!dragged || !row) return;
      const target = row.parentElement;
      if (target === dragged || dragged.contains(target)) return;
      event.preventDefault();
      const how = zone(row, event);
      if (how === "before") target.before(dragged);
      else if (how === "after") target.after(dragged);
      else childList(target, true).append(dragged);
      changed(`${labelOf(dragged)} dropped: ${where(dragged)}`);
    });
    tree.addEventListener("dragend", () => {
      dragged?.classList.remove("dragging");
      dragged = null;
      clearDrop();
    });
  }

  function enableOrdering() {
    if (!tree || !saveButton || !announcer) return;
    saveButton.closest(".menu-save").hidden = false;
    tree.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-move]");
      if (!button) return;
      event.preventDefault();
      if (button.getAttribute("aria-disabled") === "true") return;
      move(button.closest("li.menu-item"), button.dataset.move);
      button.focus();
    });
    saveButton.addEventListener("click", save);
    // Leaving with moves not saved loses them: the browser asks first.
    window.addEventListener("beforeunload", (event) => {
      if (!saveButton.disabled) event.preventDefault();
    });
    enableDragging();
    tidy();
  }

  /* --- the entry search: every collection of the select, titles with their collection. */
  function enableEntrySearch(box) {
    const select = box.querySelector("select");
    const input = box.querySelector("input[name=entry]");
    const url = document.querySelector('meta[name="cms-pick-entries"]')?.content || "/_cms/admin/pick/entries";
    const collections = [...select.options].map((option) => [option.value, option.textContent]);
    const search = document.createElement("input");
    search.type = "search";
    search.id = "item-entry-search";
    search.autocomplete = "off";
    const label = document.createElement("label");
    label.htmlFor = search.id;
    label.textContent = "Search entries";
    const results = document.createElement("ul");
    results.className = "entry-search-results";
    results.setAttribute("aria-label", "Matching entries");
    const status = document.createElement("p");
    status.className = "hint";
    status.setAttribute("role", "status");
    box.prepend(label, search, status, results);

    let asked = 0;
    const run = async () => {
      const question = ++asked;
      const query = search.value.trim();
      const answers = await Promise.all(
        collections.map(async ([slug, name]) => {
          const params = new URLSearchParams({ collection: slug, q: query });
          try {
            const response = await fetch(`${url}?${params}`, { credentials: "same-origin", headers: { Accept: "application/json" } });
            const body = await response.json();
            return response.ok ? body.data.items.map((entry) => ({ ...entry, slug, name })) : [];
          } catch {
            return [];
          }
        }),
      );
      if (question !== asked) return; // a later search answered first
      const found = answers.flat().slice(0, 20);
      results.replaceChildren(
        ...found.map((entry) => {
          const button = document.createElement("button");
          button.type = "button";
          button.textContent = `${entry.title} (${entry.name})`;
          if (entry.status !== "published") button.append(" ", Object.assign(document.createElement("span"), { className: `badge ${entry.status}`, textContent: entry.status }));
          button.addEventListener("click", () => {
            select.value = entry.slug;
            input.value = entry.id;
            status.textContent = `Chose ${entry.title} (${entry.name}).`;
            results.replaceChildren();
            input.focus();
          });
          const item = document.createElement("li");
          item.append(button);
          return item;
        }),
      );
      status.textContent = found.length ? `${found.length} entr${found.length === 1 ? "y" : "ies"} found.` : "No entries found.";
    };
    let timer = 0;
    search.addEventListener("input", () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(run, 200);
    });
    search.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        run();
      }
    });
  }

  function start() {
    enableOrdering();
    const box = document.querySelector("[data-pick-entries]");
    if (box) enableEntrySearch(box);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
