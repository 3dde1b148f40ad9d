// Public statistics pages: the leaderboard (#/leaderboard) and a player's profile (#/player/NAME).
import { call, currentUser, query, token } from "./api.js";
import { dataTable, errorBox, fill, h, playerLink, rating, share, when } from "./dom.js";
import { percent, points, t, tx } from "./i18n.js";

const VARIANTS = ["tressette", "kifameno"];
// The profile and the leaderboard also list the four-player game (its totals and rating under "partnership").
const PROFILE_VARIANTS = [...VARIANTS, "partnership"];

/** Return a game's name as the player reads it: the four-player game is "Tressette for four". */
function variantName(v) {
  return v === "partnership" ? t("partnershipGame") : t(v);
}
// The filters survive re-renders (a language switch, coming back from a profile).
const board = { variant: "tressette", minGames: 1, order: "rating", seq: 0 };

/** Return the leaderboard page; the table fills in when the server answers. */
export function leaderboardView() {
  const result = h("div", { id: "lb-result" }, h("p", {}, "…"));
  const variant = h("select", { id: "lb-variant" },
    PROFILE_VARIANTS.map((v) => h("option", { value: v, selected: v === board.variant }, variantName(v))));
  const minGames = h("input", { id: "lb-min-games", type: "number", min: 0, step: 1, value: board.minGames, inputmode: "numeric" });
  const order = h("select", { id: "lb-order" },
    [["rating", t("rating")], ["win_share", t("winShare")], ["games", t("games")]]
      .map(([v, label]) => h("option", { value: v, selected: v === board.order }, label)));
  const load = async () => {
    board.variant = variant.value;
    board.minGames = Math.max(0, Number.parseInt(minGames.value, 10) || 0);
    board.order = order.value;
    const seq = ++board.seq; // only the answer to the latest choice is shown
    const wanted = { variant: board.variant, min_games: board.minGames, order: board.order };
    try {
      const data = await call("GET", `/api/leaderboard${query(wanted)}`);
      if (seq !== board.seq) return;
      fill(result, leaderboardTable(data, wanted.variant));
    } catch (e) {
      if (seq !== board.seq) return;
      fill(result, errorBox(e));
    }
    result.dataset.shown = `${wanted.variant}/${wanted.min_games}/${wanted.order}`;
  };
  for (const control of [variant, minGames, order]) control.addEventListener("change", load);
  load();
  return h("section", { class: "panel page", id: "leaderboard-page" },
    h("h1", {}, t("leaderboard")),
    h("div", { class: "row filters" },
      h("label", {}, t("variant"), " ", variant),
      h("label", {}, t("minGames"), " ", minGames),
      h("label", {}, t("sortBy"), " ", order)),
    result,
    h("p", { class: "note", id: "rating-note" }, t("ratingNote")));
}

function leaderboardTable(data, variant) {
  const players = data.players ?? [];
  if (!players.length) return h("p", { id: "lb-empty" }, t("noPlayers"));
  const rated = players.some((p) => p.rating !== undefined && p.rating !== null);
  const headers = ["#", t("player"), t("games"), t("wins"), t("winShare"), t("pointsTotal"), ...(rated ? [t("rating")] : [])];
  return dataTable("leaderboard", headers, players.map((p) => ({
    attrs: { "data-username": p.username },
    cells: [String(p.rank), h("span", {}, playerLink(p.username), p.is_bot ? h("span", { class: "badge" }, t("bot")) : null),
      String(p.games), String(p.wins), share(p.win_share),
      variant === "partnership" ? String(p.points) : points(p.points), // whole points for four, else thirds
      ...(rated ? [rating(p.rating, p.rd)] : [])],
  })));
}

/** Return the profile page of ``name``: totals per variant and recent games with links to their replays. */
export function profileView(name) {
  const body = h("div", {}, h("p", {}, "…"));
  const page = h("section", { class: "panel page", id: "profile-page" }, h("h1", { id: "profile-name" }, name), body);
  call("GET", `/api/players/${encodeURIComponent(name)}`).then((data) => {
    if (data.role && data.role !== "player") page.querySelector("h1").append(h("span", { class: "badge" }, roleName(data.role)));
    const puzzles = data.puzzles ? h("p", { id: "profile-puzzles" }, h("a", { href: "#/puzzles" }, t("profilePuzzles")), " ",
      t("profilePuzzleLine", { rating: `${Math.round(data.puzzles.rating)}${data.puzzles.provisional ? t("provisionalMark") : ""}`,
        solved: data.puzzles.solved, tried: data.puzzles.attempts }),
      data.puzzles.provisional ? h("span", { class: "rd", id: "profile-puzzles-provisional" }, ` (${t("provisional")})`) : null)
      : null;
    fill(body, h("h2", {}, t("totals")), totalsTable(data.totals ?? {}), puzzles, h("h2", {}, t("recentGames")), recentTable(data));
  }).catch((e) => fill(body, errorBox(e, "profile-error", "player")));
  return page;
}

function roleName(role) {
  const label = t(`role_${role}`);
  return label === `role_${role}` ? role : label; // a role this client does not know is shown as the server names it
}

function totalsTable(totals) {
  const variants = PROFILE_VARIANTS.filter((v) => totals[v]);
  if (!variants.length) return h("p", { id: "profile-no-games" }, t("noGamesYet"));
  const rated = variants.some((v) => totals[v].rating !== undefined && totals[v].rating !== null);
  // The average accuracy of the player's analysed games (web/js/analysis.js), with how many there are.
  const analysed = variants.some((v) => totals[v].accuracy !== undefined && totals[v].accuracy !== null);
  const headers = [t("variant"), t("games"), t("wins"), t("winShare"), t("pointsTotal"), ...(rated ? [t("rating")] : []),
    ...(analysed ? [t("an_profile")] : [])];
  return dataTable("profile-totals", headers, variants.map((v) => {
    const x = totals[v];
    const accuracy = x.accuracy === undefined || x.accuracy === null ? "—"
      : h("span", { class: "accuracy" }, percent(Number(x.accuracy) / 100), h("span", { class: "rd" }, ` (${x.analysed})`));
    return { attrs: { "data-variant": v },
      cells: [variantName(v), String(x.games), String(x.wins), share(x.win_share),
        // The four-player game's totals are whole points (its partnerships' scores), the others' thirds.
        v === "partnership" ? String(x.points) : points(x.points), ...(rated ? [rating(x.rating, x.rd, x.provisional)] : []),
        ...(analysed ? [accuracy] : [])] };
  }), [null, null, null, "wide-only", "wide-only"]); // a phone keeps the games, wins and rating (app.css)
}

/** Return true if the signed-in visitor may replay a game of ``data``'s player (server/store/access.py): any
 * finished game not played at a private table, a private one only by its players (and admins). */
function mayReplay(data, g) {
  const me = currentUser();
  if (!token() || !me) return false;
  return g.public !== false || me.username === data.username || me.role === "admin";
}

function recentTable(data) {
  const games = data.recent_games ?? [];
  if (!games.length) return h("p", { id: "profile-no-recent" }, t("noGamesYet"));
  const headers = [t("ended"), t("variant"), t("opponent"), t("score"), t("result"), ""];
  return dataTable("recent-games", headers, games.map((g) => {
    const four = g.game === "partnership";
    return { attrs: { "data-game": g.id, ...(four ? { "data-game-kind": "partnership" } : {}) },
      cells: [when(g.ended_at), variantName(g.variant), four ? fourPlayers(g) : playerLink(g.opponent),
        four ? `${g.score} : ${g.opponent_score}` : `${Math.floor(g.points / 3)} : ${Math.floor(g.opponent_points / 3)}`,
        (g.won ? t("won") : g.draw ? t("drawResult") : t("lost")) + (g.reason && g.reason !== "finished" ? ` (${tx("reason", g.reason)})` : "")
        + (g.rated === false ? ` · ${t("notRatedShort")}` : ""),
      mayReplay(data, g) ? h("a", { href: `#/replay/${g.id}`, class: "replay-link" }, t("replay"))
        : h("span", { class: "rd private-game" }, t("privateGame"))] };
  }), ["c-ended", "c-variant", "c-opp", "c-score", "c-result", "c-replay"]); // laid out as cards on a phone (app.css)
}

/** Return a four-player deal's opponents, then the partner (kept on phones: who played with whom). */
function fourPlayers(g) {
  const [left, right] = g.opponents ?? [];
  return h("span", { class: "four-players" }, playerLink(left), " & ", playerLink(right),
    h("span", { class: "partner-of" }, ` (${t("partner")}: `, playerLink(g.partner), ")"));
}
