/* The media library's uploads and the item page's "Copy URL" (apps/studio/views/media.py).

   Uploads: files dropped on form[data-media-upload] or chosen in its file input go one request per file to the
   pickers' upload endpoint (its data-upload-url), each with a <progress> fed by XMLHttpRequest's upload progress and
   a plain sentence when it is done: uploaded, already in the library (the same bytes), or why not (too large, a type
   not allowed, storage full). Without this script the form posts every file to the library, which says the same. */
(() => {
  "use strict";

  const { el, csrfToken } = window.cmsStudio;

  function detailUrl(id) {
    return `${location.pathname.replace(/\/$/, "")}/${encodeURIComponent(id)}/`;
  }

  /* The same sentences as upload_problem() in apps/studio/views/media.py. */
  function problem(name, status, body, zone) {
    const { limitText, allowedText } = zone.dataset;
    if (status === 413) return `${name} was not uploaded: it is too large. Files may be at most ${limitText}.`;
    if (status === 415) return `${name} was not uploaded: this type of file is not allowed. Allowed: ${allowedText}.`;
    if (status === 507) return `${name} was not uploaded: the media storage is full. Ask an administrator to free space.`;
    if (status === 403) return `${name} was not uploaded: your role may not upload files.`;
    if (!status) return `${name} was not uploaded: the connection failed. Try again.`;
    const detail = body?.error?.details?.file || body?.error?.message || `the server answered ${status}`;
    return `${name} was not uploaded: ${detail}`;
  }

  function enhanceUploads(zone) {
    const input = zone.querySelector('input[type="file"]');
    const list = zone.parentElement.querySelector("[data-upload-list]");
    const submit = zone.querySelector("[data-upload-submit]");
    const live = el("p", { class: "visually-hidden", role: "status" });
    zone.after(live);
    if (submit) submit.hidden = true;
    zone.classList.add("enhanced");
    const limit = Number(zone.dataset.limitBytes) || Infinity;
    let running = 0;
    let done = 0;
    let total = 0;

    const finished = () => {
      done += 1;
      running -= 1;
      if (running === 0) live.textContent = `${done} of ${total} file${total === 1 ? "" : "s"} done.`;
    };

    const upload = (file) => {
      total += 1;
      running += 1;
      const label = el("span", { class: "upload-name", text: file.name });
      const progress = el("progress", { max: 100, value: 0, "aria-label": `Uploading ${file.name}` });
      const state = el("span", { class: "upload-state", text: "Waiting…" });
      const row = el("li", { class: "upload-row" }, label, progress, state);
      list.hidden = false;
      list.append(row);
      const end = (text, kind, link) => {
        progress.value = 100;
        progress.setAttribute("aria-label", `${file.name}: ${kind === "error" ? "failed" : "done"}`);
        row.dataset.state = kind;
        state.replaceChildren(text);
        if (link) state.append(" ", el("a", { href: link.href, text: link.text }));
        state.classList.toggle("error", kind === "error");
        finished();
      };
      if (file.size > limit) {
        end(problem(file.name, 413, null, zone), "error");
        return;
      }
      const form = new FormData();
      form.append("file", file, file.name);
      const xhr = new XMLHttpRequest();
      xhr.open("POST", zone.dataset.uploadUrl);
      xhr.setRequestHeader("X-CSRFToken", csrfToken());
      xhr.setRequestHeader("Accept", "application/json");
      xhr.responseType = "json";
      xhr.upload.addEventListener("progress", (event) => {
        if (!event.lengthComputable) return;
        const percent = Math.round((event.loaded / event.total) * 100);
        progress.value = percent;
        state.textContent = `${percent}%`;
      });
      xhr.addEventListener("load", () => {
        const body = xhr.response;
        const item = body?.data;
        if (xhr.status >= 200 && xhr.status < 300 && item) {
          const link = { href: detailUrl(item.id), text: "Open" };
          if (item.deduplicated) end(`${file.name} is already in the library as ${item.filename}.`, "duplicate", link);
          else end(`Uploaded ${item.filename}.`, "done", link);
        } else end(problem(file.name, xhr.status, body, zone), "error");
      });
      xhr.addEventListener("error", () => end(problem(file.name, 0, null, zone), "error"));
      state.textContent = "0%";
      xhr.send(form);
    };

    const uploadAll = (files) => {
      for (const file of files) upload(file);
      live.textContent = `Uploading ${files.length} file${files.length === 1 ? "" : "s"}…`;
    };

    input.addEventListener("change", () => {
      const files = [...(input.files || [])];
      if (files.length) uploadAll(files);
      input.value = "";
    });
    zone.addEventListener("submit", (event) => {
      event.preventDefault();
      const files = [...(input.files || [])];
      if (files.length) uploadAll(files);
      input.value = "";
    });
    for (const name of ["dragenter", "dragover"]) {
      zone.addEventListener(name, (event) => {
        if (![...(event.dataTransfer?.types || [])].includes("Files")) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = "copy";
        zone.classList.add("dragging");
      });
    }
    zone.addEventListener("dragleave", (event) => {
      if (!zone.contains(event.relatedTarget)) zone.classList.remove("dragging");
    });
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      zone.classList.remove("dragging");
      const files = [...(event.dataTransfer?.files || [])];
      if (files.length) uploadAll(files);
    });
  }

  /* button[data-copy="<input id>"]: copies that input's value; the readonly input stays there to select by hand. */
  function enhanceCopy(button) {
    const input = document.getElementById(button.dataset.copy);
    const status = button.parentElement.querySelector("[data-copy-status]");
    if (!input) return;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        if (!navigator.clipboard) throw new Error("no clipboard");
        await navigator.clipboard.writeText(input.value);
        if (status) status.textContent = "Copied to the clipboard.";
      } catch {
        input.focus();
        input.select();
        if (status) status.textContent = "Selected: press Ctrl+C (⌘C on a Mac) to copy.";
      }
    });
  }

  function start() {
    for (const zone of document.querySelectorAll("form[data-media-upload]")) enhanceUploads(zone);
    for (const button of document.querySelectorAll("button[data-copy]")) enhanceCopy(button);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
