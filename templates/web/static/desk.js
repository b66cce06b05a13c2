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
