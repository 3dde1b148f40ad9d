// Matches to 11, 21 or 31 (tressette/match.py): the standing in the table's head, the standings in a deal's
// summary, the match's end, and the match page (#/match/ID) that lists its deals with their replays.
import { call, currentUser } from "./api.js";
import { errorBox, h } from "./dom.js";
import { t } from "./i18n.js";
import { send } from "./live.js";

function nameAt(table, seat) {
  return table.result?.players?.[seat] ?? table.players[seat]?.username ?? "—";
}

/** Return "You 12 : 9 bob" (a player) or "ann 12 : 9 bob" (a spectator) for totals `scores`. */
function standing(table, scores) {
  const me = table.you ?? 0;
  if (table.you === null) return t("matchNamed", { a: nameAt(table, 0), x: scores[0], y: scores[1], b: nameAt(table, 1) });
  return t("matchYou", { a: scores[me], b: scores[1 - me], name: nameAt(table, 1 - me) });
}

/** Return what the target means in this game: "the first to 21 wins" (Tressette), "reaching 21 loses" (Kifameno). */
export function matchGoal(table) {
  return t(`matchGoal_${table.variant === "kifameno" ? "kifameno" : "tressette"}`, { n: table.match.target });
}

/** Return who leads the match at totals `scores`: the higher total in Tressette, the lower in Kifameno. */
export function matchLead(table, scores) {
  if (scores[0] === scores[1]) return t("matchLevel");
  const low = table.variant === "kifameno";
  const leader = (scores[0] > scores[1]) !== low ? 0 : 1;
  const line = leader === table.you ? t("matchLeadYou") : t("matchLeadNamed", { name: nameAt(table, leader) });
  return low ? `${line} (${t("matchLeadFewer")})` : line;
}

/** Return the table head's part for a match: target and what it means, totals, the leader and the deal's number
 * (null for single deals). */
export function matchHead(table) {
  const m = table.match;
  if (!m) return null;
  return h("span", { class: "match-head", id: "match-head" },
    h("strong", {}, t("matchTo", { n: m.target })), h("span", { id: "match-goal" }, `: ${matchGoal(table)}`), " · ",
    h("span", { id: "match-standing" }, standing(table, m.scores)),
    m.end ? null : h("span", { id: "match-lead", class: "match-lead" }, ` · ${matchLead(table, m.scores)}`),
    m.deal ? h("span", { class: "deal-no" }, ` · ${t("matchDeal", { n: m.deal })}`) : null);
}

/** Return the match's end as a sentence ("You won the match 22 : 15 (by 7)"), or null while it goes on. */
export function matchEndLine(table) {
  const m = table.match;
  if (!m?.end) return null;
  const me = table.you ?? 0;
  const x = m.scores[me];
  const y = m.scores[1 - me];
  let line;
  if (table.you === null) line = t("matchWonNamed", { name: nameAt(table, m.end.winner), x: m.scores[m.end.winner], y: m.scores[1 - m.end.winner] });
  else line = m.end.winner === me ? t("matchWonYou", { x, y }) : t("matchLostYou", { x, y });
  const cause = m.end.reason === "left" || m.end.reason === "timeout" ? table.result?.cause ?? m.end.reason : m.end.reason;
  const detail = forfeitWhy(cause, 1 - m.end.winner === table.you, nameAt(table, 1 - m.end.winner)) ?? t("matchBy", { n: m.end.margin });
  return `${line} (${detail})${m.end.rated === false ? ` · ${t("notRatedShort")}` : ""}`;
}

/** Return why a match was lost by forfeit ("by forfeit: you ran out of time"), or null if it was played out.
 * ``you``: the loser is the reader; ``name``: the loser's name otherwise. */
export function forfeitWhy(reason, you, name) {
  if (!["left", "timeout", "absent", "connection"].includes(reason)) return null;
  return t("matchForfeitBy", { why: t(`mf_${reason}${you ? "_you" : ""}`, { name }) });
}

/** Return the line under a match's summary between two deals: who is ready, and the seconds left to the one who
 * is not (the next deal waits for both players; server/game/playing.py NEXT_DEAL_WAIT_S). */
export function nextDealLine(table) {
  const m = table.match;
  const seconds = m?.next_deal_at ? Math.max(0, Math.round((m.next_deal_at - Date.now()) / 1000)) : null;
  if (table.you === null) return seconds === null ? t("nextDealWatch") : t("nextDealWatchWait", { n: seconds });
  const me = table.you;
  const name = nameAt(table, 1 - me);
  if (table.rematch[me] && !table.rematch[1 - me]) return t("nextDealYouWait", { name, n: seconds ?? "—" });
  if (table.rematch[1 - me] && !table.rematch[me]) return t("nextDealTheyWait", { name, n: seconds ?? "—" });
  return t("nextDealBoth");
}

/** Return the summary's match block: the standings after the deal, the end or when the next deal starts, and
 * (``canGoOn``: the opponent is still seated) the button for the next deal or a new match. */
export function matchSummary(table, canGoOn) {
  const m = table.match;
  if (!m) return null;
  const r = table.result?.match;
  const me = table.you ?? 0;
  const gains = r ? [r.scores[0] - r.before[0], r.scores[1] - r.before[1]] : null;
  const end = matchEndLine(table);
  const view = table.you === null ? [0, 1] : [me, 1 - me];
  return h("div", { class: `match-summary${end ? " over" : ""}`, id: "match-summary" },
    end ? h("p", { class: "match-end", id: "match-end" }, end) : null,
    h("p", { id: "match-after" }, `${t("matchAfterDeal", { n: r?.deal ?? m.deal })} `, h("strong", {}, standing(table, m.scores)),
      gains ? h("span", { class: "match-gain", id: "match-gain" }, ` (${t("matchGain", { a: gains[view[0]], b: gains[view[1]] })})`) : null,
      end ? null : ` · ${matchLead(table, m.scores)}`),
    h("p", { class: "note", id: "match-goal-line" }, `${t("matchTo", { n: m.target })}: ${matchGoal(table)}`),
    // Shown on touch screens too (a .note, not a .hint): who is ready, and the seconds left to the one who is not.
    !end && canGoOn ? h("p", { class: "note", id: "next-deal-in" }, nextDealLine(table)) : null,
    canGoOn ? h("div", { class: "row" }, matchButton(table)) : null);
}

/** Return the button of a match's summary: "Next deal" inside the match, "New match" after it (none for spectators). */
function matchButton(table) {
  const m = table.match;
  if (!m || table.you === null) return null;
  const me = table.you;
  const asked = table.rematch[me];
  const label = asked ? t("nextDealAsked", { name: nameAt(table, 1 - me) }) : m.end ? t("newMatch") : t("nextDeal");
  return h("button", { id: "rematch", disabled: asked, onclick: () => send({ type: "rematch", table_id: table.id }) }, label);
}

/** Update the countdown to the next deal without redrawing the page. */
export function tickMatch(table) {
  const node = document.getElementById("next-deal-in");
  if (node && table?.match?.next_deal_at) node.textContent = nextDealLine(table);
}

/** Return the match page (#/match/ID): the players, the totals, each finished deal with its replay. */
export function matchView(id) {
  const box = h("section", { class: "panel", id: "match-page" }, h("p", {}, "…"));
  call("GET", `/api/matches/${encodeURIComponent(id)}`).then((m) => {
    const over = m.winner !== null && m.winner !== undefined;
    const head = t("matchTitle", { a: m.players[0], b: m.players[1], n: m.target });
    const me = m.players.indexOf(currentUser()?.username);
    let result = t("matchGoesOn");
    if (over) {
      const line = me < 0 ? t("matchWonNamed", { name: m.players[m.winner], x: m.scores[m.winner], y: m.scores[1 - m.winner] })
        : t(me === m.winner ? "matchWonYou" : "matchLostYou", { x: m.scores[me], y: m.scores[1 - me] });
      const why = forfeitWhy(m.reason, me === 1 - m.winner, m.players[1 - m.winner]) ?? t("matchBy", { n: Math.abs(m.scores[0] - m.scores[1]) });
      result = `${line} (${why})${m.rated === false ? ` · ${t("notRated")}` : ""}`;
    }
    const total = t("matchNamed", { a: m.players[0], x: m.scores[0], y: m.scores[1], b: m.players[1] });
    const rows = m.deals.map((d) => h("tr", {},
      h("td", {}, String(d.deal)), h("td", {}, `${d.before[0]} : ${d.before[1]}`),
      h("td", {}, `+${d.whole[0]} : +${d.whole[1]}`), h("td", {}, `${d.before[0] + d.whole[0]} : ${d.before[1] + d.whole[1]}`),
      h("td", {}, h("a", { href: `#/replay/${d.game_id}`, class: "replay-link" }, t("replayLink")))));
    box.replaceChildren(
      h("h1", {}, `${t(m.variant)} · ${head}`),
      h("p", { id: "match-total" }, h("strong", {}, total), " · ",
        h("span", { id: "match-result" }, result)),
      rows.length ? h("table", { class: "list", id: "match-deals" },
        h("thead", {}, h("tr", {}, ["matchDealCol", "matchBeforeCol", "matchPointsCol", "matchAfterCol", "replay"].map((k) => h("th", {}, t(k))))),
        h("tbody", {}, rows)) : h("p", { class: "hint" }, t("matchNone")));
  }).catch((e) => box.replaceChildren(errorBox(e, "match-error", "match")));
  return box;
}
