// The import wizard's enhancements (apps/studio/templates/studio/import/): the job page follows its job by polling
// the studio's status view and moves the progress bars, announcing state changes politely; once the job stops
// (completed, failed, paused) the page reloads to show the server's summary. On the analysis page a target of
// "A new collection…" shows its slug box, others hide it. Without this file the job page offers a refresh link and
// the analysis page shows every slug box (the server ignores the ones not chosen).
"use strict";

(() => {
  const FINISHED = new Set(["completed", "failed", "paused"]);
  const POLL_MS = 1000;

  function followJob(section) {
    const url = section.dataset.statusUrl;
    const bar = document.getElementById("job-progress");
    const text = section.querySelector("[data-job-text]");
    const badge = section.querySelector("[data-job-state]");
    const announce = section.querySelector("[data-job-announce]");
    const mediaBox = section.querySelector("[data-media-progress]");
    const mediaBar = document.getElementById("media-progress");
    const mediaText = section.querySelector("[data-media-text]");
    const refresh = section.querySelector("[data-no-script-refresh]");
    if (refresh) refresh.hidden = true;
    let lastPhase = "";
    let failures = 0;

    const show = (job) => {
      bar.max = Math.max(job.pace.total, 1);
      bar.value = job.pace.done;
      bar.textContent = `${job.pace.percent}%`;
      text.textContent = job.text;
      badge.textContent = job.state;
      const media = job.media || {};
      if (media.total) {
        mediaBox.hidden = false;
        mediaBar.max = media.total;
        mediaBar.value = media.current || 0;
        mediaText.textContent = `${media.current || 0} of ${media.total} attachments`;
      }
      const phase = `${job.state} ${job.progress.phase}`;
      if (phase !== lastPhase) {
        // Only changes of state or phase are announced: every item would flood a screen reader.
        announce.textContent = `Import ${job.state}, phase ${job.progress.phase}: ${job.pace.done} of ${job.pace.total} items.`;
        lastPhase = phase;
      }
    };

    const poll = async () => {
      try {
        const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const job = (await response.json()).data;
        failures = 0;
        show(job);
        if (FINISHED.has(job.state)) {
          window.location.reload();
          return;
        }
      } catch (error) {
        failures += 1;
        text.textContent = `Could not read the job's progress (${error.message}); trying again.`;
        if (failures > 30 && refresh) {
          refresh.hidden = false;
          return;
        }
      }
      window.setTimeout(poll, POLL_MS);
    };
    poll();
  }

  function enhanceTargets(select) {
    const box = document.getElementById(select.dataset.newSlug);
    if (!box) return;
    const wrapper = box.closest(".new-slug");
    const sync = () => {
      wrapper.hidden = select.value !== "__new__";
    };
    select.addEventListener("change", sync);
    sync();
  }

  document.addEventListener("DOMContentLoaded", () => {
    const section = document.querySelector("[data-import-job]");
    if (section && !FINISHED.has(section.dataset.state)) followJob(section);
    document.querySelectorAll("select[data-new-slug]").forEach(enhanceTargets);
  });
})();
