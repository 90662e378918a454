/* The editor's Preview button: mint a preview token for this entry (the studio's …/preview, which answers the REST
   shape {success, data: {token, url, expiresAt}} to a JSON request) and open the front end's preview route in a new
   tab. Without this script the same button posts the form to …/preview in a new tab, which redirects there.
   The tab is opened before the request, while the click still counts as the person's gesture (popup blockers), and
   cut off from this page (opener = null) so the front end cannot navigate the studio. */
(() => {
  "use strict";

  const { csrfToken } = window.cmsStudio;

  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-preview]");
    if (!button) return;
    event.preventDefault();
    const error = button.parentElement.querySelector("[data-preview-error]");
    if (error) error.hidden = true;
    const tab = window.open("", "_blank");
    if (tab) tab.opener = null;
    try {
      const response = await fetch(button.formAction, {
        method: "POST",
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
      });
      const body = await response.json();
      if (!response.ok || !body.success) throw new Error(body.error?.message || "The preview could not be made.");
      if (tab) tab.location.href = body.data.url;
      else window.open(body.data.url, "_blank", "noopener");
    } catch (problem) {
      if (tab) tab.close();
      if (error) {
        error.textContent = problem.message;
        error.hidden = false;
      }
    }
  });
})();
