// The desk's only script: copy buttons and a confirmation before an undo. No build step.
document.addEventListener("click", async (ev) => {
  const btn = ev.target.closest("button.copy");
  if (!btn) return;
  const area = document.getElementById(btn.dataset.copy);
  if (!area) return;
  try {
    await navigator.clipboard.writeText(area.value);
  } catch (e) {
    area.select();
    document.execCommand("copy");
  }
  btn.classList.add("copied");
  setTimeout(() => btn.classList.remove("copied"), 1500);
});
document.addEventListener("submit", (ev) => {
  const msg = ev.target.dataset.confirm;
  if (msg && !window.confirm(msg)) ev.preventDefault();
});
// Phones: each cell learns its column's header, which the stylesheet shows before it when a table is
// laid out as cards (desk.css, max-width 640px).
for (const table of document.querySelectorAll("main table:not(.diff)")) {
  const heads = [...table.querySelectorAll(":scope > thead th")].map((th) => th.textContent.trim());
  if (!heads.length) continue;
  for (const row of table.querySelectorAll(":scope > tbody > tr")) {
    [...row.children].forEach((td, i) => {
      if (td.tagName === "TD" && !td.hasAttribute("data-label")) td.setAttribute("data-label", heads[i] || "");
    });
  }
}
