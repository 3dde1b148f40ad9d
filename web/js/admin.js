// The admins' page (#/admin): move exports, game search, aggregate statistics, bot-versus-bot series, puzzles.
// Every call carries the bearer token; the server decides who is an admin (a refusal is shown as such).
import { call, fetchAuthed, query } from "./api.js";
import { dataTable, errorBox, fill, h, playerLink, share, when } from "./dom.js";
import { num, points, t, tx } from "./i18n.js";
import { puzzlesSection } from "./puzzle_admin.js";

const VARIANTS = ["tressette", "kifameno"];
const FALLBACK_LEVELS = ["beginner", "novice", "easy", "normal", "strong", "master"];

/** Return the admin page; its sections appear once the server has accepted the caller as an admin. */
export function adminView() {
  const page = h("section", { class: "page admin", id: "admin-page" }, h("h1", {}, t("admin")));
  const body = h("div", {}, h("p", {}, "…"));
  page.append(body);
  const stats = h("div", { id: "admin-stats" });
  Promise.all([call("GET", "/api/admin/stats").then((s) => ({ s }), (e) => ({ e })), levels()]).then(([answer, names]) => {
    if (answer.e && (answer.e.status === 401 || answer.e.status === 403)) {
      fill(body, errorBox(answer.e, "admin-error"));
      return;
    }
    fill(stats, answer.e ? errorBox(answer.e) : statsTables(answer.s));
    fill(body,
      poolSection(),
      exportSection(),
      searchSection(names),
      h("section", { class: "panel" }, h("h2", {}, t("aggregates")), stats),
      seriesSection(names),
      puzzlesSection());
  });
  return page;
}

async function levels() {
  try {
    const data = await call("GET", "/api/bot-levels");
    return data.levels.map((l) => l.name);
  } catch {
    return FALLBACK_LEVELS;
  }
}

/** Return the bot pool's load (from /healthz): bots, turns in thought of the slots they offer, turns waiting. */
function poolSection() {
  const line = h("p", { id: "bot-pool" }, "…");
  fetch("/healthz").then((r) => r.json()).then((hz) => fill(line,
    `${hz.bots_connected} ${t("botsConnected")} · ${hz.bot_turns ?? 0} ${t("botTurns")} ${t("botSlots")} ${hz.bot_slots ?? 0}`
    + ` · ${hz.bot_turns_waiting ?? 0} ${t("botTurnsWaiting")}`), () => fill(line, "—"));
  return h("section", { class: "panel" }, h("h2", {}, t("botPool")), line);
}

function field(label, control) {
  return h("label", { class: "field" }, h("span", {}, label), control);
}

function variantSelect(id, anyLabel) {
  return h("select", { id, name: "variant" },
    anyLabel ? h("option", { value: "" }, anyLabel) : null,
    VARIANTS.map((v) => h("option", { value: v }, t(v))));
}

function values(form) {
  return Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, String(v).trim()]));
}

// ----- (a) export -----------------------------------------------------------------------

function exportSection() {
  const status = h("div", { id: "export-status", role: "status" });
  const form = h("form", { id: "export-form", class: "grid-form" },
    field(t("format"), h("select", { id: "export-format", name: "format" }, h("option", { value: "csv" }, "CSV"), h("option", { value: "ndjson" }, "NDJSON"))),
    field(t("variant"), variantSelect("export-variant", t("any"))),
    field(t("dateFrom"), h("input", { id: "export-date-from", name: "date_from", type: "date" })),
    field(t("dateTo"), h("input", { id: "export-date-to", name: "date_to", type: "date" })),
    field(t("player"), h("input", { id: "export-player", name: "player", autocomplete: "off" })),
    field(t("minGames"), h("input", { id: "export-min-games", name: "min_games", type: "number", min: 0, step: 1 })),
    field(t("minWinShare"), h("input", { id: "export-min-win-share", name: "min_win_share", type: "number", min: 0, max: 1, step: 0.01 })),
    field(t("minRating"), h("input", { id: "export-min-rating", name: "min_rating", type: "number", step: 1 })),
    h("div", { class: "row" }, h("button", { type: "submit", id: "export-go" }, t("download"))));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const params = values(form);
    fill(status, t("working"));
    try {
      const res = await fetchAuthed(`/api/admin/moves/export${query(params)}`);
      const blob = await res.blob();
      const name = filenameOf(res.headers.get("Content-Disposition")) ?? `moves.${params.format || "csv"}`;
      const url = URL.createObjectURL(blob);
      const link = h("a", { href: url, download: name, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      fill(status, `${t("downloaded")} ${name} · ${blob.size} ${t("bytes")}`);
    } catch (err) {
      fill(status, errorBox(err));
    }
  });
  return h("section", { class: "panel" }, h("h2", {}, t("exportMoves")), form, status);
}

/** Return the file name of a Content-Disposition header, or null. */
function filenameOf(header) {
  const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header ?? "");
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

// ----- (b) game search ------------------------------------------------------------------

function searchSection(names) {
  const out = h("div", { id: "admin-games-result" });
  const limit = 50;
  let offset = 0;
  const form = h("form", { id: "games-form", class: "grid-form" },
    field(t("player"), h("input", { id: "games-player", name: "player", autocomplete: "off" })),
    field(t("variant"), variantSelect("games-variant", t("any"))),
    field(t("dateFrom"), h("input", { id: "games-date-from", name: "date_from", type: "date" })),
    field(t("dateTo"), h("input", { id: "games-date-to", name: "date_to", type: "date" })),
    field(t("result"), h("select", { id: "games-result", name: "result" },
      h("option", { value: "" }, t("any")), h("option", { value: "won" }, t("won")), h("option", { value: "lost" }, t("lost")))),
    field(t("level"), h("select", { id: "games-bot-level", name: "bot_level" },
      h("option", { value: "" }, t("any")), names.map((lv) => h("option", { value: lv }, tx("", lv))))),
    h("div", { class: "row" }, h("button", { type: "submit", id: "games-go" }, t("search"))));
  const run = async () => {
    fill(out, t("working"));
    try {
      const data = await call("GET", `/api/admin/games${query({ ...values(form), limit, offset })}`);
      const pager = h("div", { class: "row" },
        h("span", { id: "admin-games-total" }, data.total
          ? `${offset + 1}–${offset + data.games.length} / ${data.total}` : t("noGames")),
        h("button", { type: "button", class: "ghost", id: "games-prev", disabled: offset === 0,
          onclick: () => { offset = Math.max(0, offset - limit); run(); } }, "◀"),
        h("button", { type: "button", class: "ghost", id: "games-next", disabled: offset + limit >= data.total,
          onclick: () => { offset += limit; run(); } }, "▶"));
      fill(out, pager, data.games.length ? gamesTable(data.games) : "");
    } catch (err) {
      fill(out, errorBox(err));
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    offset = 0;
    run();
  });
  return h("section", { class: "panel" }, h("h2", {}, t("searchGames")), form, out);
}

function gamesTable(games) {
  const headers = ["#", t("variant"), t("players"), t("score"), t("winner"), t("reason"), t("level"), t("started"), t("ended"),
    t("an_title")];
  return dataTable("admin-games", headers, games.map((g) => ({
    attrs: { "data-game": g.id },
    cells: [h("a", { href: `#/replay/${g.id}`, class: "replay-link" }, String(g.id)), t(g.variant),
      h("span", {}, playerLink(g.players[0]), ` ${t("versus")} `, playerLink(g.players[1])),
      // Points are kept in thirds and shown as players write them ("3⅔"), averages in points with two decimals.
      g.points ? `${thirds(g.points[0])} : ${thirds(g.points[1])}` : "—",
      g.winner === null || g.winner === undefined ? "—" : g.players[g.winner],
      g.reason ? tx("reason", g.reason) : "—", g.bot_level ?? "—", when(g.started_at), when(g.ended_at),
      g.analysis ? tx("an_status", g.analysis) : "—"],
  })));
}

/** Return points kept in thirds as players write them ("3⅔"), or "—" for none. */
function thirds(x) {
  return x === null || x === undefined ? "—" : points(x);
}

// ----- (c) aggregate statistics ---------------------------------------------------------

function statsTables(s) {
  const perDay = s.games_per_day ?? [];
  const byVariant = s.points_by_variant ?? [];
  const bots = s.bot_win_rates ?? [];
  const withKind = bots.some((b) => b.opponents !== undefined);
  return h("div", {},
    h("h3", {}, t("gamesPerDay")),
    perDay.length ? dataTable("stats-per-day", [t("day"), t("variant"), t("games")],
      perDay.map((d) => ({ cells: [String(d.day), t(d.variant), String(d.games)] }))) : h("p", {}, t("noGames")),
    h("h3", {}, t("pointsByVariant")),
    byVariant.length ? dataTable("stats-points", [t("variant"), t("games"), t("avgWinner"), t("avgLoser")],
      byVariant.map((p) => ({ cells: [t(p.variant), String(p.games), num(p.avg_winner_points / 3, 2), num(p.avg_loser_points / 3, 2)] })))
      : h("p", {}, t("noGames")),
    h("h3", {}, t("botWinRates")),
    bots.length ? dataTable("stats-bots", [t("level"), t("variant"), ...(withKind ? [t("opponents")] : []), t("games"), t("wins"), t("winShare")],
      bots.map((b) => ({ cells: [tx("", b.level), t(b.variant), ...(withKind ? [tx("opp", b.opponents)] : []),
        String(b.games), String(b.wins), share(b.win_share)] }))) : h("p", {}, t("noGames")));
}

// ----- (d) bot-versus-bot series --------------------------------------------------------

function seriesSection(names) {
  const status = h("div", { id: "series-status", role: "status" });
  const level = (id, name, pick) => h("select", { id, name }, names.map((lv) => h("option", { value: lv, selected: lv === pick }, tx("", lv))));
  const form = h("form", { id: "series-form", class: "grid-form" },
    field(t("levelA"), level("series-level-a", "level_a", names[0])),
    field(t("levelB"), level("series-level-b", "level_b", names[names.length - 1])),
    field(t("games"), h("input", { id: "series-games", name: "games", type: "number", min: 1, max: 1000, step: 1, value: 10, required: true })),
    field(t("variant"), variantSelect("series-variant", null)),
    h("div", { class: "row" }, h("button", { type: "submit", id: "series-go" }, t("startSeries"))));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const v = values(form);
    fill(status, t("working"));
    try {
      const answer = await call("POST", "/api/admin/bot-series",
        { level_a: v.level_a, level_b: v.level_b, games: Number(v.games), variant: v.variant });
      fill(status, h("p", { class: "ok", id: "series-ok" },
        `${t("seriesStarted")}: ${answer.table_id} · ${t("games")}: ${answer.games} · `,
        h("a", { href: "#/lobby" }, t("lobby"))));
    } catch (err) {
      fill(status, errorBox(err));
    }
  });
  return h("section", { class: "panel" }, h("h2", {}, t("botSeries")), form, status);
}
