// The parts of the four-player table around the play (table4.js): the head naming the game and the match, the
// waiting room with its free seats (a bot may be seated there), and a deal's end: who won, each partnership's points
// and declarations, cappotto, the match, all four hands as dealt and every trick.
import { cardEl } from "./cards.js";
import { h } from "./dom.js";
import { declarationWithPoints, placeOf, saidLine, SEATS4, signalText, teamChip, teamOf, trickGain4 } from "./four.js";
import { pointsText, t } from "./i18n.js";
import { live, send } from "./live.js";
import { levelSelect4 } from "./lobby4.js";
import { rulesButton } from "./rules.js";

const PLACE_ORDER = ["bottom", "right", "top", "left"];

function nameOf(table, seat) {
  return table.result?.players?.[seat] ?? table.players[seat]?.username ?? t("freeSeat");
}

/** Return a partnership's name: "You & ana" for the reader's side, "bot-a & bot-b" otherwise. */
export function teamName(table, team) {
  const [a, b] = [team, team + 2];
  if (table.you !== null && table.you !== undefined && teamOf(table.you) === team) {
    return t("teamYou", { name: nameOf(table, table.you === a ? b : a) });
  }
  return `${nameOf(table, a)} & ${nameOf(table, b)}`;
}

/** Return the head of a four-player table: the game, its goal, the match or single deal, the rules. */
export function gameHead4(table) {
  const m = table.match;
  return h("div", { class: "game-head", id: "game-head" },
    h("strong", { class: "game-name", id: "game-name" }, t("partnershipGame")),
    h("span", { class: "goal", id: "game-goal" }, t("goal_partnership")),
    h("span", { class: "match-head", id: "match-head" },
      m ? h("strong", {}, t("matchTo", { n: m.target })) : t("format_0"),
      m?.deal ? h("span", { class: "deal-no" }, ` · ${t("matchDeal", { n: m.deal })}`) : null),
    h("span", { class: "options", id: "table-options" }, [
      table.options?.declarations ? t("optDeclarations") : null, table.options?.signals ? t("optSignals") : null,
    ].filter(Boolean).join(" · ")),
    h("span", { class: "spacer" }), rulesButton("partnership"));
}

/** Return the waiting room: the four seats (free ones to fill with a bot for the table's creator) and the invite. */
export function waitingView4(table) {
  const taken = table.players.filter(Boolean).length;
  const creator = table.you === 0; // the creator sits at seat 0 (docs/protocol-four.md)
  const level = levelSelect4("seat-bot-level", live.form, "level4");
  const seats = PLACE_ORDER.map((place) => SEATS4.find((s) => placeOf(s, table.you) === place)).map((seat) => {
    const p = table.players[seat];
    const you = seat === table.you;
    return h("li", { class: `wait-seat team-${teamOf(seat)}`, "data-seat": seat },
      teamChip(teamOf(seat)), " ",
      h("strong", {}, you ? t("you") : p ? p.username : t("freeSeat")),
      table.you !== null && !you ? h("span", { class: "role" }, ` · ${teamOf(seat) === teamOf(table.you) ? t("partner") : t("opponentLabel")}`) : null,
      !p && creator ? h("button", { class: "ghost small", "data-seat-bot": seat,
        onclick: () => send({ type: "seat_bot", table_id: table.id, seat, level: level.value }) }, t("seatBot")) : null);
  });
  return h("section", { class: "panel", id: "waiting4" },
    h("p", {}, t("waitingPlayers", { n: taken })),
    // The level first: it is the one the "seat a bot" buttons below use.
    creator && taken < 4 ? h("p", { class: "row" }, h("label", {}, t("level"), " ", level)) : null,
    h("ul", { class: "wait-seats", id: "wait-seats" }, seats),
    table.invite ? h("p", {}, t("inviteLink4"), " ",
      h("code", { id: "invite-link" }, `${location.origin}/#/join/${table.id}/${table.invite}`)) : null);
}

function endHeading4(table) {
  const r = table.result;
  if (r.winner === null || r.winner === undefined) return t("dealDrawn");
  if (table.you === null) return t("winsNamedDeal", { name: teamName(table, r.winner) });
  return teamOf(table.you) === r.winner ? t("sideWonDeal") : t("sideLostDeal");
}

function matchEnd4(table) {
  const m = table.match;
  if (!m?.end) return null;
  const w = m.end.winner;
  // Abandoned (every person left): no winner, the totals as they stood.
  if (w === null || w === undefined) return `${t("matchTotal")}: ${m.scores[0]} : ${m.scores[1]} (${t("matchAbandoned")})`;
  const line = table.you === null ? t("sideWonMatchNamed", { name: teamName(table, w), x: m.scores[w], y: m.scores[1 - w] })
    : teamOf(table.you) === w ? t("sideWonMatch", { x: m.scores[w], y: m.scores[1 - w] })
      : t("sideLostMatch", { x: m.scores[1 - w], y: m.scores[w] });
  return m.end.reason === "abandoned" ? `${line} (${t("matchAbandoned")})` : line;
}

function rematchButton(table) {
  if (table.you === null) return null;
  const m = table.match;
  const asked = table.rematch?.[table.you];
  const waitingFor = SEATS4.filter((s) => !table.rematch?.[s] && table.players[s] && !table.players[s].is_bot)
    .map((s) => nameOf(table, s));
  const label = asked ? t("nextDealAsked", { name: waitingFor.join(", ") || "—" })
    : m && !m.end ? t("nextDeal") : m ? t("newMatch") : t("rematch");
  return h("button", { id: "rematch", disabled: asked, onclick: () => send({ type: "rematch", table_id: table.id }) }, label);
}

function scoresTable(table) {
  const r = table.result;
  const mine = table.you === null ? 0 : teamOf(table.you);
  const row = (k) => h("tr", { class: `team-${k}`, id: `result-team-${k}` },
    h("th", { scope: "row" }, teamChip(k), " ", teamName(table, k)),
    h("td", {}, String(r.points[k])), h("td", {}, `+${r.declared[k]}`), h("td", { class: "total" }, String(r.score[k])),
    table.match ? h("td", {}, `${table.match.scores[k]} / ${table.match.target}`) : null);
  return h("div", { class: "scroll-x" }, h("table", { class: "list result4", id: "result-table" },
    h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, t("cardPoints")), h("th", { scope: "col" }, t("declaredPoints")),
      h("th", { scope: "col" }, t("dealScore")), table.match ? h("th", { scope: "col" }, t("matchTotal")) : null)),
    h("tbody", {}, row(mine), row(1 - mine))));
}

function handsView(table) {
  const r = table.result;
  const said = table.view?.declarations ?? [];
  const order = PLACE_ORDER.map((place) => SEATS4.find((s) => placeOf(s, table.you) === place));
  return h("div", { class: "hands4", id: "all-hands" }, order.map((seat) => h("div", { class: `dealt team-${teamOf(seat)}`,
    id: `dealt-${seat}`, "data-seat": seat },
  h("p", { class: "dealt-name" }, teamChip(teamOf(seat)), " ", h("strong", {}, seat === table.you ? t("yourHand") : t("handOf", { name: nameOf(table, seat) })),
    said[seat]?.length ? h("span", { class: "said-inline" }, ` · ${said[seat].map(declarationWithPoints).join(", ")}`) : null),
  h("div", { class: "hand" }, (r.hands?.[seat] ?? []).map((c) => cardEl(c, { small: true }))))));
}

function tricksList(table) {
  const tricks = table.view?.tricks ?? [];
  return h("details", { class: "summary-tricks", id: "summary-tricks" },
    h("summary", {}, `${t("trickList")} (${tricks.length})`),
    h("ol", { id: "summary-trick-list" }, tricks.map((tr, i) => h("li", { class: "summary-trick" },
      h("span", { class: "who" }, t("trickLed", { name: nameOf(table, tr.leader) })),
      h("span", { class: "pair" }, tr.cards.map((c, k) => {
        const node = cardEl(c, { small: true });
        if ((tr.leader + k) % 4 === tr.winner) node.classList.add("winner");
        return node;
      })),
      tr.signal ? h("span", { class: "who" }, saidLine(nameOf(table, tr.leader), signalText(tr.signal))) : null,
      h("span", { class: "who" }, `${t("trickTook", { name: nameOf(table, tr.winner) })} (+${pointsText(trickGain4(tr.cards, i + 1))})`)))));
}

/** Return whether the deal's end says "not rated": a single deal's own flag; in a match, whose deals are never rated
 * one by one (the match is, at its end: docs/protocol-four.md), only the match's end when it is not rated. */
function notRated4(table) {
  if (!table.match) return table.result.rated === false;
  return table.match.end ? table.match.end.rated === false : false;
}

/** Return a four-player deal's end: the result, the match, what to do next, all four hands and the tricks. */
export function summaryView4(table) {
  const r = table.result;
  const end = matchEnd4(table);
  return h("section", { class: "summary summary4", id: "summary", role: "status" },
    end ? h("p", { class: "match-end", id: "match-end" }, end) : null,
    h("h2", { id: "summary-head" }, endHeading4(table)),
    r.cappotto ? h("p", { class: "cappotto", id: "cappotto" }, t("cappottoLine", { name: teamName(table, r.winner) })) : null,
    notRated4(table) ? h("p", { class: "not-rated", id: "not-rated" }, t("notRatedShort")) : null,
    scoresTable(table),
    h("p", { class: "note" }, t("wholePointsNote")),
    h("div", { class: "row summary-actions", id: "summary-actions" }, rematchButton(table),
      table.game_id && table.you !== null ? h("a", { id: "replay-link", href: `#/replay/${table.game_id}` }, t("replayLink")) : null,
      h("a", { id: "back-lobby", href: "#/lobby" }, t("backToLobby"))),
    h("h3", {}, t("allHands")),
    handsView(table),
    tricksList(table));
}
