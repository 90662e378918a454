/* Follows the search index rebuild shown on the search page (apps/studio/views/admin_tools.py): while its job waits
   or runs, asks GET /_cms/api/search/rebuild/jobs/{id} for its state every two seconds and updates the <progress>,
   its label (announced by the live region around it) and the start button. The page renders the same state, so a
   reload resumes here where the job is. */
(() => {
  "use strict";

  const ACTIVE = new Set(["queued", "running"]);
  const EVERY_MS = 2000;

  function label(job) {
    if (job.state === "queued") return "Waiting for the worker to start the rebuild…";
    if (job.state === "running") return `Rebuilding: ${job.done} of ${job.total} entries checked`;
    if (job.state === "done") {
      const result = job.result || {};
      return `Done: ${result.entries} entries checked, ${result.written} documents written, ${result.removed} removed`;
    }
    return `Failed after ${job.done} of ${job.total} entries`;
  }

  function show(box, job) {
    const progress = box.querySelector("progress");
    const text = box.querySelector("#rebuild-label");
    box.dataset.state = job.state;
    if (progress) {
      progress.max = Math.max(job.total, 1);
      progress.value = job.state === "done" ? progress.max : job.done;
      progress.textContent = `${job.done} of ${job.total}`;
      if (job.state === "queued") progress.setAttribute("aria-busy", "true");
      else progress.removeAttribute("aria-busy");
    }
    if (text) text.textContent = label(job);
    let error = box.querySelector(".error");
    if (job.error) {
      if (!error) {
        error = document.createElement("p");
        error.className = "error";
        box.append(error);
      }
      error.textContent = job.error;
    }
    const start = document.getElementById("rebuild-start");
    if (start && !ACTIVE.has(job.state)) {
      start.disabled = false;
      start.removeAttribute("aria-describedby");
    }
  }

  async function follow(box) {
    try {
      const response = await fetch(box.dataset.url, {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const job = (await response.json()).data;
      show(box, job);
      if (ACTIVE.has(job.state)) setTimeout(() => follow(box), EVERY_MS);
    } catch {
      // A network hiccup: try again a little later rather than freezing the bar.
      setTimeout(() => follow(box), EVERY_MS * 2);
    }
  }

  function start() {
    const box = document.getElementById("rebuild-status");
    if (box && box.dataset.url && ACTIVE.has(box.dataset.state)) setTimeout(() => follow(box), EVERY_MS);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
