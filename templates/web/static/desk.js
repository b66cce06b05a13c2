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
// Live refresh (issue 20): every few seconds the page asks /changes whether the store moved since it
// was drawn (another judge, the runner, a command). Nothing typed is ever lost: a page with a form
// being filled (typed into, an open form, one shown again after a refusal) only says so, and the
// judge refreshes when he is ready; any other page refreshes itself.
(() => {
  const body = document.body;
  const since = body.dataset.stamp;
  const every = Number(body.dataset.pollMs || 0);
  if (!since || !body.dataset.changes || !(every > 0)) return;
  let typed = false;
  document.addEventListener("input", (ev) => {
    if (ev.target.closest && ev.target.closest("form")) typed = true;
  });
  const editing = () => {
    if (typed || document.querySelector(".action-error, .form-error")) return true;
    if (document.querySelector("details[open] form")) return true;
    const el = document.activeElement;
    return !!(el && el.closest && el.closest("form") && /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  };
  const fresh = () => window.location.assign(body.dataset.pageUrl || window.location.href);
  let shown = false;
  const offer = () => {
    if (shown) return;
    shown = true;
    const bar = document.createElement("p");
    bar.className = "changed-banner";
    bar.setAttribute("role", "status");
    const btn = document.createElement("button");
    btn.type = "button";
    btn.id = "refresh-now";
    btn.textContent = body.dataset.changedText;
    btn.addEventListener("click", fresh);
    bar.appendChild(btn);
    const main = document.querySelector("main");
    main.insertBefore(bar, main.firstChild);
  };
  const check = async () => {
    let answer;
    try {
      const r = await fetch(body.dataset.changes + "?since=" + encodeURIComponent(since), {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
        cache: "no-store",
      });
      if (!r.ok || !(r.headers.get("Content-Type") || "").includes("json")) return;
      answer = await r.json();
    } catch (e) {
      return; // the desk is down or restarting: ask again later
    }
    if (!answer.changed) return;
    if (editing()) offer();
    else fresh();
  };
  window.setInterval(check, every);
})();
