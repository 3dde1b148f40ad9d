// The admin page's puzzle list: every puzzle with its rating and how often it was tried and solved.
import { call, query } from "./api.js";
import { dataTable, errorBox, fill, h, rating, share } from "./dom.js";
import { t } from "./i18n.js";
import { pt, themeText } from "./puzzle_text.js";

const PAGE = 50;

/** Return the puzzles section (newest first, a page at a time) for the admin page. */
export function puzzlesSection() {
  const list = h("div", { id: "admin-puzzles" }, h("p", {}, "…"));
  let offset = 0;
  const load = async () => {
    try {
      const data = await call("GET", `/api/puzzles${query({ limit: PAGE, offset })}`);
      const pager = h("div", { class: "row" },
        offset > 0 ? h("button", { class: "ghost small", type: "button", id: "puzzles-newer",
          onclick: () => { offset = Math.max(0, offset - PAGE); load(); } }, "←") : null,
        h("span", { id: "puzzles-total" }, `${data.total === 0 ? 0 : offset + 1}–${offset + data.puzzles.length} / ${data.total}`),
        offset + PAGE < data.total ? h("button", { class: "ghost small", type: "button", id: "puzzles-older",
          onclick: () => { offset += PAGE; load(); } }, "→") : null);
      fill(list, puzzleTable(data.puzzles), pager);
    } catch (e) {
      fill(list, errorBox(e));
    }
  };
  load();
  return h("section", { class: "panel" }, h("h2", {}, pt("title")), list);
}

function puzzleTable(puzzles) {
  if (!puzzles.length) return h("p", { id: "admin-puzzles-empty" }, "—");
  const headers = ["#", t("variant"), t("rating"), pt("tried"), pt("solvedCount"), pt("themes"), pt("source")];
  return dataTable("admin-puzzle-list", headers, puzzles.map((p) => ({
    attrs: { "data-puzzle": p.id },
    cells: [String(p.id), t(p.variant), rating(p.rating, p.rd), String(p.attempts),
      p.attempts ? `${p.solved} (${share(p.solved / p.attempts)})` : String(p.solved),
      p.themes.map((key) => themeText(key)[0]).join(", ") || "—",
      h("a", { href: `#/replay/${p.game_id}` }, `${p.game_id} · ${p.move_number}`)],
  })));
}
