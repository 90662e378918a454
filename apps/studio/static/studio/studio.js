/* What every studio script shares, loaded first on every studio page (templates/studio/base.html): building elements,
   the CSRF token for fetch and XHR writes, and a polite live region that announces the same sentence twice when it
   is said twice. The page scripts read them from window.cmsStudio. */
(() => {
  "use strict";

  const studio = (window.cmsStudio = window.cmsStudio || {});

  /* An element: attrs go to setAttribute except `text` (textContent) and `class`; children are appended. */
  studio.el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "text") node.textContent = value;
      else if (name === "class") node.className = value;
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  };

  studio.csrfToken = () => document.querySelector('meta[name="csrf-token"]')?.content || "";

  /* A function that says a sentence in `region` (an aria-live element). */
  studio.announcer = (region) => (message) => {
    // Cleared first so that the same sentence twice is announced twice.
    region.textContent = "";
    window.setTimeout(() => {
      region.textContent = message;
    }, 30);
  };
})();
