/* The media item page's focal point editor (apps/studio/templates/studio/media_item.html).

   The two number inputs (across, down; 0-1 from the top left) are the editor, with or without this script. The
   script adds a marker on the picture where they point, moves it as they change, and sets them from a click on the
   picture; "Centre crops" empties both. Saving is the page's own form. */
(() => {
  "use strict";

  function round(value) {
    return Math.round(Math.min(1, Math.max(0, value)) * 100) / 100;
  }

  function setUp(frame) {
    const form = document.querySelector("form.media-meta");
    const x = form?.querySelector("[data-focal-x]");
    const y = form?.querySelector("[data-focal-y]");
    const marker = frame.querySelector("[data-focal-marker]");
    const image = frame.querySelector("img");
    if (!x || !y || !marker || !image) return;

    const show = () => {
      const across = parseFloat(x.value);
      const down = parseFloat(y.value);
      const valid = [across, down].every((value) => Number.isFinite(value) && value >= 0 && value <= 1);
      marker.hidden = !valid;
      if (valid) {
        marker.style.left = `${across * 100}%`;
        marker.style.top = `${down * 100}%`;
      }
    };
    x.addEventListener("input", show);
    y.addEventListener("input", show);

    if (image.hasAttribute("data-focal-image")) {
      frame.classList.add("focal-editable");
      image.addEventListener("click", (event) => {
        const box = image.getBoundingClientRect();
        x.value = round((event.clientX - box.left) / box.width);
        y.value = round((event.clientY - box.top) / box.height);
        show();
        x.focus();
      });
    }
    const clear = form.querySelector("[data-focal-clear]");
    if (clear) {
      clear.hidden = false;
      clear.addEventListener("click", () => {
        x.value = "";
        y.value = "";
        show();
        x.focus();
      });
    }
    show();
  }

  document.querySelectorAll("[data-focal-frame]").forEach(setUp);
})();
