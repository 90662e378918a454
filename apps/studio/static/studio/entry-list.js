// Entry lists: the "select all" box of a bulk form, shown only when this script runs (without it, rows are chosen
// one by one). It ticks every row of its table and reflects a partial choice as "mixed".
document.querySelectorAll("form.bulk").forEach((form) => {
  const all = form.querySelector("input.select-all");
  if (!all) return;
  const rows = () => Array.from(form.querySelectorAll('input[name="ids"]'));
  const reflect = () => {
    const ticked = rows().filter((box) => box.checked).length;
    all.checked = ticked > 0 && ticked === rows().length;
    all.indeterminate = ticked > 0 && ticked < rows().length;
  };
  all.hidden = false;
  all.addEventListener("change", () => {
    rows().forEach((box) => {
      box.checked = all.checked;
    });
    reflect();
  });
  form.addEventListener("change", (event) => {
    if (event.target !== all) reflect();
  });
  reflect();
});
