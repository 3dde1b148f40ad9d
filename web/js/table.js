// The table (#/table/ID): the game named, both hands, the trick, the score, the clock, presence and the summary.
//
// The server sends each change at once; a person needs time to see a trick. So the snapshots of a table pass
// through a queue: a snapshot that completes a trick shows both cards for HOLD_MS (a click or a key skips it),
// then the cards go to the winner's side with a line "bot took the trick (+1⅓)", the draws are revealed, and
// only then does the next snapshot (e.g. the bot's instant lead) show. Players and spectators alike.
import { cardEl, POINTS } from "./cards.js";
import { h } from "./dom.js";
import { points, pointsText, t } from "./i18n.js";
import { announce, live, noticeText, rerender, send, toast } from "./live.js";
import { matchEndLine, matchHead, matchSummary, tickMatch } from "./match.js";
import { drawRevealEl, hideDraws, revealDraws } from "./reveal.js";
import { rulesButton } from "./rules.js";

export const HOLD_MS = 1300;
export const COLLECT_MS = 400;
const LAST_TRICK_BONUS = 3; // thirds (RULES.md)
const TRICKS = 20;

const queues = new Map(); // table id -> { items: [table messages], hold: null | { trick, n, collecting, timer } }
const taken = new Map(); // table id -> { winner, gain, n }: the last trick taken, for the line under the trick
// table id -> the position a card of ours was sent from. Until the server answers it (the table moves on, or an
// error), the hand takes no other card: a double tap, or a second card tapped while the first is on its way, would
// only earn a "not your turn".
const sent = new Map();

const reducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;

function queueOf(id) {
  if (!queues.has(id)) queues.set(id, { items: [], hold: null });
  return queues.get(id);
}

/** Return the points (thirds) a trick carried: its cards, and the bonus on the last trick. */
export function trickGain(cards, n) {
  return cards.reduce((sum, c) => sum + POINTS[c.split(" ")[1]], 0) + (n === TRICKS ? LAST_TRICK_BONUS : 0);
}

/** Take a `table` message from the server: shown at once, or after the trick being shown. */
export function receiveTable(m, onShown) {
  const id = m.table.id;
  if (live.left.has(id)) return; // we left: the forfeit's end and later news are not ours
  const q = queueOf(id);
  q.items.push(m);
  pump(id, onShown);
}

function pump(id, onShown) {
  const q = queueOf(id);
  while (!q.hold && q.items.length) {
    const m = q.items.shift();
    const prev = live.tables[id];
    live.tables[id] = m.table;
    applyEvent(m.table, m.event ?? {}, prev, q, onShown);
    onShown?.(m, prev);
  }
  rerender();
}

function applyEvent(table, ev, prev, q, onShown) {
  const v = table.view;
  if (ev.kind === "trick") {
    hideDraws(table.id);
    taken.delete(table.id);
    q.hold = { trick: ev.trick, n: v.history.length, collecting: false, onShown };
    q.hold.timer = setTimeout(() => collect(table.id), HOLD_MS);
    announce(trickLine(table, ev.trick.winner, trickGain(ev.trick.cards, v.history.length), v.history.length));
    return;
  }
  if (ev.kind === "start") {
    taken.delete(table.id);
    hideDraws(table.id);
  } else if (ev.kind === "end" || ev.kind === "match_end") {
    hideDraws(table.id);
    if (table.result) {
      announce([endHeading(table), causeLine(table), table.result.rated === false ? t("notRated") : null,
        matchEndLine(table)].filter(Boolean).join(" "));
    }
  } else if (ev.kind === "disconnect" || ev.kind === "reconnect") {
    const name = table.players[ev.seat]?.username ?? "—";
    if (ev.seat !== table.you) announce(ev.kind === "disconnect" ? t("awayNoClock", { name }) : t("isBack", { name }));
  }
  if (table.status === "playing" && v && v.to_move === table.you && prev?.view?.to_move !== table.you) announce(t("yourTurn"));
}

function collect(id) {
  const q = queueOf(id);
  if (!q.hold) return;
  clearTimeout(q.hold.timer);
  if (reducedMotion() || q.hold.collecting) {
    finish(id);
    return;
  }
  q.hold.collecting = true;
  q.hold.timer = setTimeout(() => finish(id), COLLECT_MS);
  rerender();
}

function finish(id) {
  const q = queueOf(id);
  const hold = q.hold;
  if (!hold) return;
  clearTimeout(hold.timer);
  q.hold = null;
  taken.set(id, { winner: hold.trick.winner, gain: trickGain(hold.trick.cards, hold.n), n: hold.n });
  revealDraws(id, hold.n, hold.trick.draws);
  pump(id, hold.onShown);
}

/** Skip the pause after a trick on every table (a click or a key). Return true if one was showing. */
export function skipHold() {
  let skipped = false;
  for (const [id, q] of queues) {
    if (q.hold) {
      finish(id);
      skipped = true;
    }
  }
  return skipped;
}

/** Return true while a trick is being shown on table `id`. */
export function holding(id) {
  return Boolean(queues.get(id)?.hold);
}

/** Forget a table's queue and trick line (the page left it). */
export function forgetTable(id) {
  const q = queues.get(id);
  if (q?.hold) clearTimeout(q.hold.timer);
  queues.delete(id);
  taken.delete(id);
  sent.delete(id);
  hideDraws(id);
  delete live.tables[id];
}

// ----- what is shown ---------------------------------------------------------------------------------------------

/** The view as it was when the held trick's second card fell: the draws not yet in the hands, nobody to move. */
function heldView(v, hold) {
  const draws = hold.trick.draws;
  const drawnBy = (seat) => draws.filter(([s]) => s === seat).map(([, c]) => c);
  const gain = trickGain(hold.trick.cards, hold.n);
  return {
    ...v,
    hand: v.hand.filter((c) => !drawnBy(v.seat).includes(c)),
    known: v.known.map((cards, s) => cards.filter((c) => !drawnBy(s).includes(c))),
    hand_counts: v.hand_counts.map((n, s) => n - drawnBy(s).length),
    stock_count: v.stock_count + draws.length,
    points: v.points.map((p, s) => (s === hold.trick.winner ? p - gain : p)),
    table: hold.trick.cards,
    legal: [],
    to_move: null,
  };
}

/** Return where a table's deal stands (deal, tricks, cards on the table): it changes with every card played. */
function position(table) {
  const v = table.view;
  return `${table.deal_number ?? 0}:${v?.history.length ?? 0}:${v?.table.length ?? 0}`;
}

/** Forget every card sent and not yet answered: the server refused one (an error), or the socket was new. */
export function forgetSent() {
  sent.clear();
}

function nameOf(table, seat) {
  return table.players[seat]?.username ?? "—";
}

function trickLine(table, winner, gain, n) {
  const text = winner === table.you ? t("youTookTrick") : t("theyTookTrick", { name: nameOf(table, winner) });
  return `${text} (+${points(gain)}${n === TRICKS ? `, ${t("lastTrickBonus")}` : ""})`;
}

/** Return the line under the turn: whose turn it is and the seconds left on the clock. */
export function turnLine(table) {
  const v = table.view;
  if (table.status !== "playing" || !v || holding(table.id)) return "";
  const mine = v.to_move === table.you;
  const left = table.turn_deadline ? Math.max(0, Math.round((table.turn_deadline - Date.now()) / 1000)) : null;
  const who = mine ? t("yourTurn") : table.you === null || table.players[v.to_move]
    ? t("theirTurnNamed", { name: nameOf(table, v.to_move) }) : t("theirTurn");
  return who + (left !== null ? ` · ${left} ${t("seconds")}` : "");
}

/** Return a seat's presence line ("ana lost the connection: 23 s to come back"), or "" when connected. */
export function presenceLine(table, seat) {
  const p = table.players[seat];
  if (!p || p.is_bot || p.connected !== false || table.status === "closed") return "";
  const name = p.username;
  if (!p.reconnect_deadline) return t("awayNoClock", { name });
  const seconds = Math.max(0, Math.round((p.reconnect_deadline - Date.now()) / 1000));
  return t("away", { name, seconds });
}

/** Update what changes by the second (the clock, presence countdowns) without redrawing the page. */
export function tickTable(id) {
  const table = live.tables[id];
  if (!table) return;
  const turn = document.getElementById("turn");
  if (turn) turn.textContent = turnLine(table);
  for (const seat of [0, 1]) {
    const node = document.getElementById(`presence-${seat}`);
    if (node) node.textContent = presenceLine(table, seat);
  }
  tickMatch(table);
}

function seatLabel(table, v, seat, bottom) {
  const you = table.you !== null && seat === table.you;
  const name = you ? t("you") : nameOf(table, seat); // a bot's name says its level (bot-easy)
  const toMove = table.status === "playing" && v?.to_move === seat;
  return h("div", { class: `seat-line${bottom ? " bottom" : ""}` },
    h("span", { class: `seat-name${toMove ? " to-move" : ""}`, id: `seat-name-${seat}` }, name),
    h("span", { class: "seat-points", id: `seat-points-${seat}` }, pointsText(v ? v.points[seat] : 0)),
    h("span", { class: "presence", id: `presence-${seat}`, role: "status" }, presenceLine(table, seat)));
}

/** Return the table page for table `id`. */
export function tableView(id) {
  const table = live.tables[id];
  if (live.moved.has(id)) return movedView(id, table);
  if (!table) return h("p", { class: "panel" }, "…");
  const parts = [gameHead(table)];
  const notice = noticeText(table.notice);
  if (notice) parts.push(h("p", { class: "notice", id: "notice" }, notice));
  const v0 = table.view;
  const hold = queueOf(id).hold;
  // Once the deal is over its summary takes the table's place (also when the loser left: the seat is free then).
  if (table.result && !hold && (table.status === "waiting" || table.status === "finished")) {
    if (table.you === null) parts.push(h("p", { id: "spectating" }, t("watching", { a: endName(table, 0), b: endName(table, 1) })));
    parts.push(summaryView(table));
    if (table.invite && table.status === "waiting") {
      parts.push(h("p", {}, t("inviteLink"), " ", h("code", { id: "invite-link" }, `${location.origin}/#/join/${table.id}/${table.invite}`)));
    }
    parts.push(chatView(table), leaveControls(table));
    return h("div", { class: "table-area" }, parts);
  }
  if (table.status === "waiting" || !v0) {
    parts.push(h("section", { class: "panel" }, h("p", {}, t("waitingOpponent")),
      table.invite ? h("p", {}, t("inviteLink"), " ", h("code", { id: "invite-link" }, `${location.origin}/#/join/${table.id}/${table.invite}`)) : null));
    return h("div", { class: "table-area" }, parts, leaveControls(table));
  }
  const v = hold ? heldView(v0, hold) : v0;
  const spectator = table.you === null;
  const me = table.you ?? 0;
  const opp = 1 - me;
  const legal = new Set(v.legal);
  const myTurn = table.status === "playing" && v.to_move === table.you;
  const at = position(table);
  const waiting = sent.get(id) === at;
  const play = (card) => {
    if (sent.get(id) === at) return;
    sent.set(id, at);
    send({ type: "play", table_id: table.id, card });
    rerender();
  };
  const refused = (card) => {
    if (holding(id) || waiting) return; // the click only ends the pause (see app.js); or our card is on its way
    if (myTurn) play(card); // a card that does not follow suit: the server says why, in our language
    else if (table.status === "playing") toast(t("waitFor", { name: nameOf(table, v.to_move) }));
  };
  const oppKnown = v.known[opp];
  const oppCards = [...oppKnown.map((c) => cardEl(c, { small: true })),
    ...Array.from({ length: Math.max(0, v.hand_counts[opp] - oppKnown.length) }, () => cardEl(null, { small: true }))];
  const myCards = spectator
    ? [...v.known[me].map((c) => cardEl(c, { small: true })),
      ...Array.from({ length: Math.max(0, v.hand_counts[me] - v.known[me].length) }, () => cardEl(null, { small: true }))]
    : v.hand.map((c) => cardEl(c, { playable: myTurn && !waiting && legal.has(c), dim: myTurn && !legal.has(c), onPlay: play, onRefused: refused }));
  const handLabel = (seat) => (!spectator && seat === me ? t("yourHand") : t("handOf", { name: nameOf(table, seat) }));
  const last = v0.history[v0.history.length - 1];
  const took = taken.get(id);
  const trickClass = `trick${hold ? " held" : ""}${hold?.collecting ? ` collect-${hold.trick.winner === opp ? "up" : "down"}` : ""}`;
  const trickCards = v.table.map((c, i) => {
    const node = cardEl(c);
    if (hold && (hold.trick.leader + i) % 2 === hold.trick.winner) node.classList.add("winner");
    return node;
  });
  parts.push(
    h("div", { class: "scores" }, h("span", { class: `turn${myTurn ? " mine" : ""}`, id: "turn" }, turnLine(table))),
    seatLabel(table, v, opp, false),
    h("div", { class: "hand", id: "opp-hand", role: "region", "aria-label": handLabel(opp) }, oppCards),
    h("div", { class: "center" },
      h("div", { class: "stock" }, v.stock_count ? cardEl(null, { small: true }) : null, h("div", { id: "stock" }, `${t("stock")}: ${v.stock_count}`)),
      h("div", { class: trickClass, id: "trick", role: "region", "aria-label": t("tableCards") }, trickCards),
      drawRevealEl(table),
      last && !hold ? h("button", { class: "ghost", id: "last-trick", onclick: () => { live.showLast = !live.showLast; rerender(); } },
        live.showLast ? t("hideLastTrick") : t("lastTrick")) : null),
    h("p", { class: "taken", id: "taken" },
      hold ? h("span", { class: "hint keys-only" }, t("skipHint"))
        : took && table.status !== "waiting" ? trickLine(table, took.winner, took.gain, took.n) : ""),
    live.showLast && last && !hold ? h("div", { class: "trick", id: "last" }, last.cards.map((c) => cardEl(c, { small: true }))) : null,
    h("div", { class: "hand", id: "my-hand", role: "region", "aria-label": handLabel(me) }, myCards),
    seatLabel(table, v, me, true));
  if (spectator) parts.splice(1, 0, h("p", { id: "spectating" }, t("watching", { a: nameOf(table, 0), b: nameOf(table, 1) })));
  parts.push(chatView(table), leaveControls(table));
  return h("div", { class: "table-area" }, parts);
}

function gameHead(table) {
  // Deals won at this table count only once a second deal is on (a rematch): never "1 : 0" on a single deal.
  const deals = table.match ? matchHead(table) : table.deal_number > 1
    ? h("span", { id: "match-score" }, `${t("matchScore")} ${table.match_wins[table.you ?? 0]} : ${table.match_wins[1 - (table.you ?? 0)]}`) : null;
  return h("div", { class: "game-head", id: "game-head" },
    h("strong", { class: "game-name", id: "game-name" }, t(table.variant)),
    h("span", { class: "goal", id: "game-goal" }, t(`goal_${table.variant}`)),
    table.deal_number && !table.match ? h("span", { class: "deal-no" }, t("dealOf", { n: table.deal_number })) : null,
    deals, h("span", { class: "spacer" }), rulesButton(table.variant));
}

function movedView(id, table) {
  return h("section", { class: "panel moved", id: "seat-moved" },
    table ? h("p", { class: "game-name" }, t(table.variant)) : null,
    h("p", {}, t("seatMoved")),
    h("div", { class: "row" },
      h("button", { id: "play-here", onclick: () => { live.moved.delete(id); send({ type: "open_table", table_id: id }); rerender(); } }, t("playHere")),
      h("a", { href: "#/lobby" }, t("lobby"))));
}

/** Return the name of the player at `seat` when the deal ended (a loser who left has no seat any more). */
function endName(table, seat) {
  return table.result?.players?.[seat] ?? nameOf(table, seat);
}

/** Return the line saying how the deal ended: points, or the loser's leaving, lost connection or clock ("You ran
 * out of time." to the loser). */
function causeLine(table) {
  const r = table.result;
  const cause = r.cause ?? r.reason;
  if (!["left", "connection", "timeout"].includes(cause)) return t("cause_finished");
  const loser = 1 - r.winner;
  return t(`cause_${cause}${loser === table.you ? "_you" : ""}`, { name: endName(table, loser) });
}

function summaryTricks(table) {
  const history = table.view?.history ?? [];
  const items = history.map((tr, i) => {
    const gain = trickGain(tr.cards, i + 1);
    return h("li", { class: "summary-trick" },
      h("span", { class: "who" }, t("trickLed", { name: endName(table, tr.leader) })),
      h("span", { class: "pair" }, tr.cards.map((c, k) => {
        const node = cardEl(c, { small: true });
        if ((tr.leader + k) % 2 === tr.winner) node.classList.add("winner");
        return node;
      })),
      h("span", { class: "who" }, `${t("trickTook", { name: endName(table, tr.winner) })} (+${pointsText(gain)})`));
  });
  return h("details", { class: "summary-tricks", id: "summary-tricks", open: history.length > 0 },
    h("summary", {}, `${t("trickList")} (${history.length})`),
    items.length ? h("ol", { id: "summary-trick-list" }, items) : h("p", {}, t("nobodyTricks")));
}

function endHeading(table) {
  const r = table.result;
  const deal = table.match ? "Deal" : ""; // in a match the deal is one step: "You won the deal"
  return table.you === null ? t(`winsNamed${deal}`, { name: endName(table, r.winner) })
    : r.winner === table.you ? t(`youWin${deal}`) : t(`youLose${deal}`);
}

function summaryView(table) {
  const r = table.result;
  const spectator = table.you === null;
  const me = table.you ?? 0;
  const forfeit = ["left", "connection", "timeout"].includes(r.cause ?? r.reason);
  const pts = (seat) => Math.floor(r.points[seat] / 3); // players count whole points; the thirds are dropped
  const heading = endHeading(table);
  const opponentGone = !spectator && !table.players[1 - me];
  const pile = (seat, label) => h("div", { class: "pile", id: `pile-${seat}` },
    h("strong", {}, label), ` · ${pointsText(r.points[seat])}`,
    h("div", { class: "hand" }, r.piles[seat].map((c) => cardEl(c, { small: true }))));
  const score = spectator
    ? `${endName(table, 0)} ${pts(0)} : ${pts(1)} ${endName(table, 1)}`
    : `${t("finalScore")} ${pts(me)} : ${pts(1 - me)}`;
  const exact = spectator ? `${points(r.points[0])} : ${points(r.points[1])}` : `${points(r.points[me])} : ${points(r.points[1 - me])}`;
  return h("section", { class: "summary", id: "summary", role: "status" },
    matchSummary(table, !opponentGone),
    h("h2", { id: "summary-head" }, heading, forfeit ? h("span", { class: "forfeit" }, ` · ${t("byForfeit")}`) : null),
    h("p", { class: `end-reason${forfeit ? " forfeit" : ""}`, id: "end-reason" }, causeLine(table)),
    r.rated === false ? h("p", { class: "not-rated", id: "not-rated" }, t("notRated")) : null,
    h("p", { class: "final", id: "final-score" }, score,
      h("span", { class: "exact" }, ` (${t("exactScore")} ${exact})`)),
    opponentGone ? h("p", { class: "note", id: "opponent-gone" }, t("opponentGone")) : null,
    // What to do next comes before the piles and the tricks: in view at 1280x800 without scrolling.
    h("div", { class: "row summary-actions", id: "summary-actions" },
      opponentGone || table.match ? null : !spectator ? h("button", { id: "rematch", disabled: table.rematch[me],
        onclick: () => send({ type: "rematch", table_id: table.id }) }, table.rematch[me] ? t("rematchAsked") : t("rematch")) : null,
      table.game_id && !spectator ? h("a", { id: "replay-link", href: `#/replay/${table.game_id}` }, t("replayLink")) : null,
      table.result?.match?.id && !spectator
        ? h("a", { id: "match-link", href: `#/match/${table.result.match.id}` }, t("matchLink")) : null,
      h("a", { id: "back-lobby", href: "#/lobby" }, t("backToLobby"))),
    h("p", { class: "summary-goal" }, `${t(table.variant)}: ${t(`goal_${table.variant}`)}`),
    h("div", { class: "piles" },
      pile(me, spectator ? t("pileOf", { name: endName(table, me) }) : t("yourPile")),
      pile(1 - me, spectator ? t("pileOf", { name: endName(table, 1 - me) }) : t("theirPile"))),
    summaryTricks(table));
}

/** Return the table's chat: its lines and the line to type (the four-player table's too). */
export function chatView(table) {
  const input = h("input", { maxlength: 200, id: "chat-input", placeholder: t("chat"), "aria-label": t("chat"),
    oninput: (e) => { live.draft = e.target.value; } });
  input.value = live.draft ?? "";
  const submit = (e) => {
    e.preventDefault();
    if (input.value.trim()) send({ type: "chat", table_id: table.id, text: input.value.trim() });
    input.value = "";
    live.draft = "";
  };
  return h("section", { class: "panel" },
    h("div", { class: "chat", id: "chat" }, (live.chat[table.id] ?? []).map((m) => h("p", {}, h("strong", {}, m.from), ": ", m.text))),
    h("form", { class: "row", onsubmit: submit }, input, h("button", { type: "submit" }, t("send"))));
}

/** Leave the table for good: tell the server, forget it here, go to the lobby. */
function leave(table) {
  send({ type: "leave_table", table_id: table.id });
  live.left.add(table.id);
  live.confirmLeave = null;
  forgetTable(table.id);
  location.hash = "#/lobby";
  toast(t("leftTable"), 4000);
}

function leaveControls(table) {
  const seated = table.you !== null;
  const inMatch = Boolean(table.match && !table.match.end); // leaving between a match's deals loses the match too
  const running = seated && (table.status === "playing" || (inMatch && table.status === "finished"));
  if (live.confirmLeave === table.id && running) {
    return h("div", { class: "confirm-backdrop", id: "leave-backdrop" },
      h("div", { class: "row confirm", id: "leave-confirm", role: "alertdialog", "aria-modal": "true", "aria-label": t("leaveConfirm") },
        h("span", {}, t(inMatch ? "leaveConfirmMatch" : "leaveConfirm")),
        h("button", { id: "leave-yes", onclick: () => leave(table) }, t("leaveForfeit")),
        h("button", { class: "ghost", id: "leave-no", onclick: () => { live.confirmLeave = null; rerender(); } }, t("stay"))));
  }
  return h("div", { class: "row" }, h("button", { class: "ghost", id: "leave", onclick: () => {
    if (running) {
      live.confirmLeave = table.id;
      rerender();
      document.getElementById("leave-no")?.focus();
    } else {
      leave(table);
    }
  } }, t("leave")));
}
