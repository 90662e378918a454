/* The studio's pickers: a media library dialog for inputs marked [data-media-field] and a search-as-you-type
   combobox for inputs marked [data-reference-field]. The inputs stay the form's fields (their values are what is
   submitted); this only helps fill them. The same media dialog opens for the rich-text editor through
   window.cmsStudio.pickMedia(). Talks to the JSON of apps/studio/views/pickers.py. */
(() => {
  "use strict";

  const meta = (name, fallback) => document.querySelector(`meta[name="${name}"]`)?.content || fallback;
  const URLS = {
    media: meta("cms-pick-media", "/_cms/admin/pick/media"),
    upload: meta("cms-pick-media-upload", "/_cms/admin/pick/media/upload"),
    entries: meta("cms-pick-entries", "/_cms/admin/pick/entries"),
  };
  const { el, csrfToken } = window.cmsStudio;
  let counter = 0;
  const uniqueId = (prefix) => `${prefix}-${++counter}`;

  async function request(url, options = {}) {
    const response = await fetch(url, {
      credentials: "same-origin",
      ...options,
      headers: { Accept: "application/json", ...(options.headers || {}) },
    });
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (!response.ok || !body || !("data" in body)) {
      const error = new Error(body?.error?.message || `The request failed (status ${response.status}).`);
      error.details = body?.error?.details || {};
      throw error;
    }
    return body.data;
  }

  const debounce = (fn, wait) => {
    let timer = 0;
    return (...args) => {
      clearTimeout(timer);
      timer = setTimeout(() => fn(...args), wait);
    };
  };

  const isImage = (item) => typeof item.mimeType === "string" && item.mimeType.startsWith("image/");

  /* ---------------------------------------------------------------------------------------------------------------
     The media dialog: one per page, reused by every field and by the rich-text editor. */
  class MediaDialog {
    constructor() {
      this.titleId = uniqueId("media-dialog-title");
      this.searchId = uniqueId("media-search");
      this.uploadId = uniqueId("media-upload");
      this.statusEl = el("p", { class: "picker-status", role: "status" });
      this.search = el("input", { type: "search", id: this.searchId, maxlength: 200, autocomplete: "off" });
      this.grid = el("ul", { class: "grid picker-grid", "aria-label": "Media items" });
      this.more = el("button", { type: "button", text: "Load more", hidden: true });
      this.upload = el("input", { type: "file", id: this.uploadId });
      this.choose = el("button", { type: "button", class: "primary", text: "Choose", disabled: true });
      this.cancel = el("button", { type: "button", text: "Cancel" });
      this.dialog = el(
        "dialog",
        { class: "media-picker", "aria-labelledby": this.titleId },
        el("h2", { id: this.titleId, text: "Choose media" }),
        el(
          "div",
          { class: "toolbar", role: "search" },
          el("div", {}, el("label", { for: this.searchId, text: "Search media" }), this.search),
          el("div", {}, el("label", { for: this.uploadId, text: "Upload new" }), this.upload),
        ),
        this.statusEl,
        this.grid,
        this.more,
        el("div", { class: "toolbar picker-actions" }, this.choose, this.cancel),
      );
      document.body.append(this.dialog);
      this.items = new Map();
      this.selected = null;
      this.resolve = null;
      this.search.addEventListener("input", debounce(() => this.load(true), 250));
      this.search.addEventListener("keydown", (event) => {
        // Enter in the search box searches now instead of submitting anything.
        if (event.key === "Enter") {
          event.preventDefault();
          this.load(true);
        }
      });
      this.more.addEventListener("click", () => this.load(false));
      this.upload.addEventListener("change", () => this.uploadFile());
      this.grid.addEventListener("keydown", (event) => this.onGridKey(event));
      this.choose.addEventListener("click", () => this.finish(this.selected));
      this.cancel.addEventListener("click", () => this.finish(null));
      // Escape closes a modal dialog by itself: that is a cancel.
      this.dialog.addEventListener("close", () => this.settle(null));
    }

    open({ type = "" } = {}) {
      if (this.resolve) this.settle(null);
      this.type = type;
      this.selected = null;
      this.choose.disabled = true;
      this.search.value = "";
      this.upload.value = "";
      this.upload.accept = type === "image" ? "image/*" : "";
      const chosen = new Promise((resolve) => {
        this.resolve = resolve;
      });
      this.dialog.showModal();
      this.search.focus();
      this.load(true);
      return chosen;
    }

    say(message, alert = false) {
      this.statusEl.textContent = message;
      this.statusEl.classList.toggle("error", alert);
      this.statusEl.setAttribute("role", alert ? "alert" : "status");
    }

    async load(reset) {
      const params = new URLSearchParams();
      if (this.search.value.trim()) params.set("q", this.search.value.trim());
      if (this.type) params.set("type", this.type);
      if (!reset && this.cursor) params.set("cursor", this.cursor);
      const asked = params.toString();
      this.asked = asked;
      this.say("Loading…");
      try {
        const page = await request(`${URLS.media}?${asked}`);
        if (this.asked !== asked) return; // a later search answered first
        if (reset) {
          this.grid.replaceChildren();
          this.items.clear();
        }
        for (const item of page.items) this.grid.append(this.tile(item));
        this.cursor = page.nextCursor;
        this.more.hidden = !page.nextCursor;
        const count = this.items.size;
        this.say(count ? `${count} item${count === 1 ? "" : "s"} shown.` : "No media matches.");
        this.rove();
      } catch (error) {
        this.say(error.message, true);
      }
    }

    tile(item) {
      this.items.set(item.id, item);
      const name = item.alt ? `${item.filename}: ${item.alt}` : item.filename;
      const button = el("button", {
        type: "button",
        class: "picker-tile",
        "data-id": item.id,
        "aria-pressed": "false",
        "aria-label": name,
        tabindex: -1,
      });
      button.append(
        isImage(item)
          ? el("img", { src: item.url, alt: "", loading: "lazy", width: 160, height: 128 })
          : el("span", { class: "file", "aria-hidden": "true", text: item.mimeType }),
        el("span", { class: "picker-name", "aria-hidden": "true", text: item.filename }),
      );
      button.addEventListener("click", () => this.select(item.id));
      button.addEventListener("dblclick", () => this.finish(this.items.get(item.id)));
      return el("li", {}, button);
    }

    tiles() {
      return [...this.grid.querySelectorAll(".picker-tile")];
    }

    /* One tile in the tab order (the selected one, else the first); arrow keys move between them. */
    rove(focusId) {
      const tiles = this.tiles();
      const current = tiles.find((tile) => tile.dataset.id === (focusId || this.selected?.id)) || tiles[0];
      for (const tile of tiles) tile.tabIndex = tile === current ? 0 : -1;
      if (focusId && current) current.focus();
    }

    onGridKey(event) {
      const tiles = this.tiles();
      const index = tiles.indexOf(document.activeElement);
      if (index < 0) return;
      const top = tiles[0].offsetTop;
      const columns = Math.max(1, tiles.filter((tile) => tile.offsetTop === top).length);
      const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns, ArrowUp: -columns };
      let next = index;
      if (event.key in moves) next = index + moves[event.key];
      else if (event.key === "Home") next = 0;
      else if (event.key === "End") next = tiles.length - 1;
      else return;
      event.preventDefault();
      next = Math.min(tiles.length - 1, Math.max(0, next));
      this.rove(tiles[next].dataset.id);
    }

    select(id) {
      this.selected = this.items.get(id) || null;
      for (const tile of this.tiles()) tile.setAttribute("aria-pressed", String(tile.dataset.id === id));
      this.choose.disabled = !this.selected;
      this.rove(id);
      if (this.selected) this.say(`Selected ${this.selected.filename}. Press Choose to use it.`);
    }

    async uploadFile() {
      const file = this.upload.files?.[0];
      if (!file) return;
      const form = new FormData();
      form.append("file", file);
      this.say(`Uploading ${file.name}…`);
      try {
        const item = await request(URLS.upload, {
          method: "POST",
          body: form,
          headers: { "X-CSRFToken": csrfToken() },
        });
        this.grid.querySelector(`[data-id="${CSS.escape(item.id)}"]`)?.closest("li")?.remove();
        this.grid.prepend(this.tile(item));
        this.select(item.id);
        this.say(
          item.deduplicated
            ? `${item.filename} was already in the library; it is selected.`
            : `Uploaded ${item.filename}; it is selected.`,
        );
      } catch (error) {
        this.say(error.details?.file || error.message, true);
      } finally {
        this.upload.value = "";
      }
    }

    finish(item) {
      this.settle(item);
      if (this.dialog.open) this.dialog.close();
    }

    settle(item) {
      const resolve = this.resolve;
      this.resolve = null;
      if (resolve) resolve(item || null);
    }
  }

  let dialog = null;
  const mediaDialog = () => (dialog ||= new MediaDialog());

  function pickMedia(options = {}) {
    return mediaDialog()
      .open(options)
      .then((item) => (item ? { ...item, id: item.id, url: item.url, alt: item.alt || "" } : null));
  }

  function changed(input) {
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  /* [data-media-field="image|file"] holding a media id: a preview, "Choose from library" and "Remove". */
  function enhanceMediaField(input) {
    const type = input.dataset.mediaField === "image" ? "image" : "";
    // The editor's server-drawn preview and "Remove" box stand in for these controls when scripts do not run.
    const wrapper = input.closest(".media-field");
    if (wrapper) for (const node of wrapper.querySelectorAll("[data-server-preview], .media-remove")) node.hidden = true;
    const removal = wrapper?.querySelector(".media-remove input");
    const label = input.labels?.[0]?.textContent.trim() || "media";
    const preview = el("span", { class: "media-preview", "aria-live": "polite" });
    // The visible words start each name (axe: label-content-name-mismatch); the field's label follows, unseen.
    const hidden = (text) => el("span", { class: "visually-hidden", text });
    const choose = el("button", { type: "button" }, "Choose from library", hidden(` for ${label}`));
    const remove = el("button", { type: "button" }, "Remove", hidden(` ${label}`));
    const show = (item) => {
      preview.replaceChildren();
      remove.hidden = !input.value;
      if (!input.value) return;
      if (item?.url && (item.mimeType === undefined || isImage(item))) {
        preview.append(el("img", { src: item.url, alt: item.alt || "", width: 96, height: 72 }));
      }
      preview.append(el("span", { text: item?.filename || input.value }));
    };
    choose.addEventListener("click", async () => {
      const item = await pickMedia({ type });
      choose.focus();
      if (!item) return;
      input.value = item.id;
      if (removal) removal.checked = false;
      show(item);
      changed(input);
    });
    remove.addEventListener("click", () => {
      input.value = "";
      if (removal) removal.checked = true;
      show(null);
      changed(input);
      choose.focus();
    });
    input.after(el("div", { class: "media-field-controls" }, preview, choose, remove));
    // What the editor knows of the current item (data-media-url, -alt, -filename), else its id.
    const { mediaUrl: url, mediaAlt: alt, mediaFilename: filename } = input.dataset;
    show(input.value ? { url, alt, filename } : null);
  }

  /* ---------------------------------------------------------------------------------------------------------------
     [data-reference-field] (ids; comma-separated when data-multiple="true"; target collection in data-target): an
     ARIA combobox searching that collection as people type, the chosen entries as removable chips. */
  function badge(entry) {
    const status = entry.changed ? "changed" : entry.status;
    const text = entry.changed ? "published, changed" : entry.status;
    return el("span", { class: `badge ${status}`, text });
  }

  function enhanceReferenceField(input) {
    const multiple = input.dataset.multiple === "true";
    const target = input.dataset.target || "";
    const comboId = uniqueId("reference");
    const listId = `${comboId}-list`;
    const label = input.labels?.[0];
    const chosen = []; // {id, title, status, changed}
    const chips = el("ul", { class: "chips", "aria-label": `Chosen ${label ? label.textContent.trim() : "entries"}` });
    const combo = el("input", {
      type: "text",
      id: comboId,
      role: "combobox",
      "aria-autocomplete": "list",
      "aria-expanded": "false",
      "aria-controls": listId,
      autocomplete: "off",
      placeholder: "Type to search…",
    });
    const list = el("ul", { id: listId, role: "listbox", class: "combo-list", hidden: true });
    const live = el("p", { class: "visually-hidden", role: "status" });
    if (label) label.htmlFor = comboId;
    if (input.getAttribute("aria-describedby")) combo.setAttribute("aria-describedby", input.getAttribute("aria-describedby"));
    input.hidden = true;
    input.after(el("div", { class: "reference-picker" }, chips, el("div", { class: "combo" }, combo, list), live));

    let options = [];
    let active = -1;

    const write = () => {
      input.value = chosen.map((entry) => entry.id).join(",");
      changed(input);
    };
    const renderChips = () => {
      chips.replaceChildren(
        ...chosen.map((entry) => {
          const remove = el("button", { type: "button", class: "link", text: "×", "aria-label": `Remove ${entry.title}` });
          remove.addEventListener("click", () => {
            chosen.splice(chosen.indexOf(entry), 1);
            renderChips();
            write();
            live.textContent = `Removed ${entry.title}.`;
            combo.focus();
          });
          return el("li", { class: "chip", "data-id": entry.id }, el("span", { text: entry.title }), " ", badge(entry), " ", remove);
        }),
      );
    };
    const close = () => {
      list.hidden = true;
      combo.setAttribute("aria-expanded", "false");
      combo.removeAttribute("aria-activedescendant");
      active = -1;
    };
    const highlight = (index) => {
      active = index;
      [...list.children].forEach((option, position) => option.setAttribute("aria-selected", String(position === index)));
      const option = list.children[index];
      if (option) {
        combo.setAttribute("aria-activedescendant", option.id);
        option.scrollIntoView({ block: "nearest" });
      } else combo.removeAttribute("aria-activedescendant");
    };
    const pick = (entry) => {
      if (multiple) {
        if (!chosen.some((item) => item.id === entry.id)) chosen.push(entry);
      } else chosen.splice(0, chosen.length, entry);
      renderChips();
      write();
      combo.value = "";
      close();
      live.textContent = `Chose ${entry.title}.`;
    };
    const render = () => {
      const taken = new Set(chosen.map((entry) => entry.id));
      options = options.filter((entry) => !taken.has(entry.id));
      list.replaceChildren(
        ...options.map((entry, index) => {
          const option = el("li", { id: `${listId}-${index}`, role: "option", "aria-selected": "false" }, el("span", { text: entry.title }), " ", badge(entry));
          // Keep the focus in the combobox while the pointer chooses.
          option.addEventListener("mousedown", (event) => event.preventDefault());
          option.addEventListener("click", () => pick(entry));
          return option;
        }),
      );
      list.hidden = options.length === 0;
      combo.setAttribute("aria-expanded", String(!list.hidden));
      active = -1;
      live.textContent = options.length ? `${options.length} result${options.length === 1 ? "" : "s"}; use the arrow keys.` : "No entries found.";
    };
    let asked = "";
    const search = async () => {
      const params = new URLSearchParams({ collection: target, q: combo.value.trim() });
      const query = params.toString();
      asked = query;
      try {
        const data = await request(`${URLS.entries}?${query}`);
        if (asked !== query) return;
        options = data.items;
        render();
      } catch (error) {
        options = [];
        list.replaceChildren();
        close();
        live.textContent = error.message;
      }
    };
    const searchSoon = debounce(search, 200);
    combo.addEventListener("input", searchSoon);
    combo.addEventListener("focus", () => {
      if (!options.length) search();
    });
    combo.addEventListener("blur", close);
    combo.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        if (list.hidden) {
          if (!options.length) {
            search();
            return;
          }
          render();
        }
        const count = list.children.length;
        if (!count) return;
        const step = event.key === "ArrowDown" ? 1 : -1;
        highlight(active < 0 ? (step > 0 ? 0 : count - 1) : (active + step + count) % count);
      } else if (event.key === "Enter") {
        if (!list.hidden && active >= 0) {
          event.preventDefault();
          pick(options[active]);
        } else if (!list.hidden) event.preventDefault();
      } else if (event.key === "Escape") {
        if (!list.hidden) {
          event.preventDefault();
          close();
        } else combo.value = "";
      } else if (event.key === "Backspace" && !combo.value && chosen.length) {
        const entry = chosen.pop();
        renderChips();
        write();
        live.textContent = `Removed ${entry.title}.`;
      }
    });

    // The entries already referenced, shown by title and status.
    const ids = input.value.split(",").map((id) => id.trim()).filter(Boolean);
    if (ids.length) {
      const params = new URLSearchParams({ collection: target, ids: ids.join(",") });
      request(`${URLS.entries}?${params}`)
        .then((data) => {
          const found = new Map(data.items.map((entry) => [entry.id, entry]));
          for (const id of ids) chosen.push(found.get(id) || { id, title: id, status: "missing" });
          renderChips();
        })
        .catch(() => {
          for (const id of ids) chosen.push({ id, title: id, status: "missing" });
          renderChips();
        });
    }
  }

  function enhance(root = document) {
    for (const input of root.querySelectorAll("[data-media-field]:not([data-picker-ready])")) {
      input.dataset.pickerReady = "true";
      enhanceMediaField(input);
    }
    for (const input of root.querySelectorAll("[data-reference-field]:not([data-picker-ready])")) {
      input.dataset.pickerReady = "true";
      enhanceReferenceField(input);
    }
  }

  window.cmsStudio = window.cmsStudio || {};
  window.cmsStudio.pickMedia = pickMedia;
  window.cmsStudio.enhancePickers = enhance;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => enhance());
  else enhance();
})();
