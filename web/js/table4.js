// The table for four (#/table/ID of a `"game": "partnership"` table, docs/protocol-four.md): your hand at the bottom,
// your partner across, the opponents left and right; who is to play and the clock; the trick as it builds, each card
// at its player's side; both partnerships' points, declarations and the match; declarations and signals offered as
// buttons when the rules allow them (view.declarable, view.signals) and sent with the card; what everyone said.
// The two-player table (table.js) is untouched: app.js sends each table's snapshots to one of the two.
import { cardEl } from "./cards.js";
import { h } from "./dom.js";
import {
  declarationKey, declarationToSend, declarationWithPoints, placeOf, saidLine, SEATS4, signalText, tableTalk, teamChip,
  teamOf, TRICKS4, trickGain4,
} from "./four.js";
import { plural, points, pointsText, t } from "./i18n.js";
import { announce, live, noticeText, rerender, send, toast } from "./live.js";
import { chatView, HOLD_MS, presenceLine } from "./table.js";
import { gameHead4, summaryView4, teamName, waitingView4 } from "./summary4.js";

const queues = new Map(); // table id -> { items: [table messages], hold: null | { trick, n, timer, onShown } }
const sent = new Map(); // table id -> the position our card was sent from (no second card until the server answers)
const picks = new Map(); // table id -> { at, off: Set of declaration keys left out, signal }: the choices before a card

function queueOf(id) {
  if (!queues.has(id)) queues.set(id, { items: [], hold: null });
  return queues.get(id);
}

/** Take a four-player `table` message: shown at once, or after the trick being shown. */
export function receiveTable4(m, onShown) {
  const id = m.table.id;
  if (live.left.has(id)) return;
  queueOf(id).items.push(m);
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

function nameOf(table, seat) {
  return table.players[seat]?.username ?? t("freeSeat");
}

function applyEvent(table, ev, prev, q, onShown) {
  const v = table.view;
  if ((ev.kind === "play" && ev.signal) || ((ev.kind === "play" || ev.kind === "trick") && ev.declarations?.length)) {
    // What is said with a card is said aloud: a screen reader hears it as the table would.
    // A trick's last card is its leader's third follower's (a `trick` event names the trick, not always the seat).
    const seat = ev.seat ?? (ev.trick ? (ev.trick.leader + 3) % 4 : null);
    // A signal goes with a lead, never with a trick's last card: a `trick` event's signal is the lead's, heard then.
    const signal = ev.kind === "play" && ev.signal ? signalText(ev.signal) : null;
    const words = [...(ev.declarations ?? []).map(declarationWithPoints), signal].filter(Boolean);
    if (seat !== null && words.length) announce(saidLine(seat === table.you ? t("you") : nameOf(table, seat), words.join(", ")));
  }
  if (ev.kind === "trick" && ev.trick && v) {
    const n = v.tricks.length;
    q.hold = { trick: ev.trick, n, onShown, timer: setTimeout(() => finish(table.id), HOLD_MS) };
    announce(trickLine4(table, ev.trick.winner, trickGain4(ev.trick.cards, n), n));
    return;
  }
  if (ev.kind === "bot_took_seat") announce(t("botTookSeat", { name: ev.replaced ?? "—", seat: ev.seat + 1 }));
  if (table.status === "playing" && v && v.to_move === table.you && prev?.view?.to_move !== table.you) announce(t("yourTurn"));
}

function finish(id) {
  const q = queueOf(id);
  const hold = q.hold;
  if (!hold) return;
  clearTimeout(hold.timer);
  q.hold = null;
  pump(id, hold.onShown);
}

/** Skip the pause after a trick on every four-player table. Return true if one was showing. */
export function skipHold4() {
  let skipped = false;
  for (const [id, q] of queues) {
    if (q.hold) {
      finish(id);
      skipped = true;
    }
  }
  return skipped;
}

/** Forget a four-player table's queue and choices (the page left it, or signed out). */
export function forgetTable4(id) {
  const q = queues.get(id);
  if (q?.hold) clearTimeout(q.hold.timer);
  queues.delete(id);
  sent.delete(id);
  picks.delete(id);
}

/** Forget every card sent and not yet answered (a refusal, or a new socket). */
export function forgetSent4() {
  sent.clear();
}

function trickLine4(table, winner, gain, n) {
  const text = winner === table.you ? t("youTookTrick") : t("theyTookTrick", { name: nameOf(table, winner) });
  return `${text} (+${pointsText(gain)}${n === TRICKS4 ? `, ${t("lastTrickBonus")}` : ""})`;
}

/** The view while a finished trick is still shown: its four cards on the table, nobody to move. */
function heldView(v, hold) {
  const team = teamOf(hold.trick.winner);
  const gain = trickGain4(hold.trick.cards, hold.n);
  return {
    ...v, table: hold.trick.cards, leader: hold.trick.leader, signal: hold.trick.signal ?? null,
    tricks: v.tricks.slice(0, -1), to_move: null, legal: [], declarable: [], signals: {},
    points: v.points.map((p, i) => (i === team ? p - gain : p)),
  };
}

function position(table) {
  const v = table.view;
  return `${table.deal_number ?? 0}:${v?.tricks?.length ?? 0}:${v?.table?.length ?? 0}`;
}

/** Return the line under the board: whose turn it is and the seconds left on the clock. */
export function turnLine4(table) {
  const v = table.view;
  if (table.status !== "playing" || !v || v.to_move === null || v.to_move === undefined || queueOf(table.id).hold) return "";
  const mine = v.to_move === table.you;
  const left = table.turn_deadline ? Math.max(0, Math.round((table.turn_deadline - Date.now()) / 1000)) : null;
  const who = mine ? t("yourTurn") : t("theirTurnNamed", { name: nameOf(table, v.to_move) });
  return who + (left !== null ? ` · ${left} ${t("seconds")}` : "");
}

/** Update the clock and the presence lines without redrawing the page. */
export function tickTable4(id) {
  const table = live.tables[id];
  if (!table) return;
  const turn = document.getElementById("turn");
  if (turn) turn.textContent = turnLine4(table);
  for (const seat of SEATS4) {
    const node = document.getElementById(`presence-${seat}`);
    if (node) node.textContent = presenceLine(table, seat);
  }
}

// ----- the page ----------------------------------------------------------------------------------------------------

/** Return the page of four-player table ``id``. */
export function table4View(id) {
  const table = live.tables[id];
  if (!table) return h("p", { class: "panel" }, "…");
  const parts = [gameHead4(table)];
  const notice = noticeText(table.notice);
  if (notice) parts.push(h("p", { class: "notice", id: "notice" }, notice));
  const hold = queueOf(id).hold;
  if (table.result && !hold && (table.status === "waiting" || table.status === "finished")) {
    parts.push(summaryView4(table), chatView(table), leaveControls4(table));
    return h("div", { class: "table-area four" }, parts);
  }
  if (table.status === "waiting" || !table.view) {
    parts.push(waitingView4(table), leaveControls4(table));
    return h("div", { class: "table-area four" }, parts);
  }
  const v = hold ? heldView(table.view, hold) : table.view;
  parts.push(scoreboard(table, v),
    h("p", { class: `turn four-turn${v.to_move === table.you && table.you !== null ? " mine" : ""}`, id: "turn", role: "status" },
      turnLine4(table)),
    board(table, v, hold),
    h("p", { class: "taken", id: "taken" }, hold ? trickLine4(table, hold.trick.winner, trickGain4(hold.trick.cards, hold.n), hold.n) : ""),
    choices(table, v),
    myHand(table, v),
    talkView(table, v),
    lastTrickView(table, v, hold),
    chatView(table),
    leaveControls4(table));
  return h("div", { class: "table-area four" }, parts);
}

function scoreboard(table, v) {
  const team = (k) => h("div", { class: `team-score team-${k}`, id: `team-${k}`, "data-team": k },
    h("div", { class: "team-name" }, teamChip(k), h("strong", {}, teamName(table, k))),
    h("div", { class: "team-figures" },
      h("span", { id: `team-points-${k}` }, `${t("cardPoints")}: ${points(v.points[k])}`),
      v.options?.declarations !== false ? h("span", { id: `team-declared-${k}` }, `${t("declaredPoints")}: +${v.declared[k]}`) : null,
      h("span", { class: "team-total", id: `team-total-${k}` }, `${t("dealScore")}: ${v.score[k]}`),
      table.match ? h("span", { class: "team-match", id: `team-match-${k}` },
        `${t("matchTotal")}: ${table.match.scores[k]} / ${table.match.target}`) : null));
  const mine = table.you === null ? 0 : teamOf(table.you);
  return h("div", { class: "scoreboard", id: "scoreboard" }, team(mine), team(1 - mine));
}

/** A seat at the table: name in its partnership's colour, cards left, what it declared, the signal it gave. */
function seatBox(table, v, seat) {
  const me = table.you;
  const place = placeOf(seat, me);
  const you = me !== null && seat === me;
  const toMove = table.status === "playing" && v.to_move === seat;
  const role = you ? null : me === null ? null : teamOf(seat) === teamOf(me) ? t("partner") : t("opponentLabel");
  const said = v.declarations?.[seat] ?? [];
  const signal = v.signal && v.table.length && v.leader === seat ? v.signal : null;
  const count = v.hand_counts?.[seat] ?? 0;
  return h("div", { class: `seat4 seat-${place} team-${teamOf(seat)}${toMove ? " to-move" : ""}`, id: `seat-${place}`,
    "data-seat": seat },
  h("div", { class: "seat-head" },
    h("span", { class: "seat-name", id: `seat-name-${seat}` }, toMove ? h("span", { class: "arrow", "aria-hidden": "true" }, "▸ ") : null,
      you ? t("you") : nameOf(table, seat)),
    role ? h("span", { class: "role" }, role) : null,
    table.players[seat]?.replaced ? h("span", { class: "role replaced" }, t("replacedFor", { name: table.players[seat].replaced })) : null),
  you ? null : h("div", { class: "seat-cards", title: plural("cardsLeft", count) },
    count ? cardEl(null, { small: true }) : null, h("span", { class: "count" }, plural("cardsLeft", count))),
  said.length ? h("div", { class: "bubble decl", id: `said-${seat}` }, said.map(declarationWithPoints).join(", ")) : null,
  signal ? h("div", { class: "bubble signal", id: `signal-${seat}` }, signalText(signal)) : null,
  h("span", { class: "presence", id: `presence-${seat}`, role: "status" }, presenceLine(table, seat)));
}

function board(table, v, hold) {
  const at = {};
  v.table.forEach((c, i) => { at[(v.leader + i) % 4] = c; });
  const slots = SEATS4.map((seat) => {
    const place = placeOf(seat, table.you);
    const card = at[seat];
    const node = card ? cardEl(card) : null;
    if (node && hold && seat === hold.trick.winner) node.classList.add("winner");
    // The card led is ringed: it names the suit the others must follow.
    const led = card && seat === v.leader;
    return h("div", { class: `slot slot-${place}${led ? " led" : ""}`, id: `slot-${place}`, "data-seat": seat }, node);
  });
  return h("div", { class: `board4${hold ? " held" : ""}`, id: "board4" },
    SEATS4.map((seat) => seatBox(table, v, seat)),
    h("div", { class: "cross", id: "trick", role: "region", "aria-label": t("tableCards") }, slots));
}

/** Return the choices made before the card, for the position the player is at (reset when it moves on). */
function pickOf(table) {
  const at = position(table);
  let p = picks.get(table.id);
  if (!p || p.at !== at) {
    p = { at, off: new Set(), signal: null };
    picks.set(table.id, p);
  }
  return p;
}

function choices(table, v) {
  if (table.you === null || v.to_move !== table.you || table.status !== "playing") return null;
  const p = pickOf(table);
  const rows = [];
  if (v.declarable?.length) {
    rows.push(h("div", { class: "choice-row", id: "declare-row", role: "group", "aria-label": t("declareTitle") },
      h("span", { class: "choice-label" }, t("declareTitle")),
      v.declarable.map((d) => {
        const key = declarationKey(d);
        const on = !p.off.has(key);
        return h("button", { type: "button", class: `pick decl-toggle${on ? " on" : " ghost"}`, "aria-pressed": on ? "true" : "false",
          "data-decl": key, onclick: () => { if (on) p.off.add(key); else p.off.delete(key); rerender(); } },
        on ? "✓ " : "", declarationWithPoints(d));
      }),
      h("span", { class: "note" }, t("declareHint"))));
  }
  const offered = ["busso", "volo", "striscio"].filter((s) => Object.values(v.signals ?? {}).some((list) => list.includes(s)));
  if (offered.length) {
    rows.push(h("div", { class: "choice-row", id: "signal-row", role: "group", "aria-label": t("signalTitle") },
      h("span", { class: "choice-label" }, t("signalTitle")),
      offered.map((s) => h("button", { type: "button", class: `pick signal-toggle${p.signal === s ? " on" : " ghost"}`,
        "aria-pressed": p.signal === s ? "true" : "false", "data-signal": s, title: t(`signalHint_${s}`),
        onclick: () => { p.signal = p.signal === s ? null : s; rerender(); } }, signalText(s))),
      h("span", { class: "note", id: "signal-hint" }, p.signal ? t(`signalHint_${p.signal}`) : t("signalNone"))));
  }
  return rows.length ? h("section", { class: "choices", id: "choices" }, rows) : null;
}

function myHand(table, v) {
  if (table.you === null) return null;
  const id = table.id;
  const at = position(table);
  const waiting = sent.get(id) === at;
  const myTurn = table.status === "playing" && v.to_move === table.you;
  const p = myTurn ? pickOf(table) : null;
  // With a signal chosen, only the cards it is true of may be led with it.
  const legal = new Set((v.legal ?? []).filter((c) => !p?.signal || (v.signals?.[c] ?? []).includes(p.signal)));
  const play = (card) => {
    if (sent.get(id) === at) return;
    sent.set(id, at);
    const msg = { type: "play", table_id: id, card };
    const declared = (v.declarable ?? []).filter((d) => !p.off.has(declarationKey(d)));
    if (declared.length) msg.declarations = declared.map(declarationToSend);
    if (p.signal && (v.signals?.[card] ?? []).includes(p.signal)) msg.signal = p.signal;
    send(msg);
    rerender();
  };
  const refused = (card) => {
    if (waiting || queueOf(id).hold) return;
    if (myTurn && p?.signal && (v.legal ?? []).includes(card)) toast(t("signalNotWith", { signal: signalText(p.signal) }));
    else if (myTurn) play(card); // not following suit: the server says why, in the page's language
    else if (table.status === "playing" && v.to_move !== null) toast(t("waitFor", { name: nameOf(table, v.to_move) }));
  };
  return h("div", { class: "hand", id: "my-hand", role: "region", "aria-label": t("yourHand") },
    v.hand.map((c) => cardEl(c, { playable: myTurn && !waiting && legal.has(c), dim: myTurn && !legal.has(c), onPlay: play, onRefused: refused })));
}

function talkView(table, v) {
  const lines = tableTalk(v);
  if (!lines.length) return null;
  const who = (seat) => (seat === table.you ? t("you") : nameOf(table, seat));
  return h("section", { class: "talk", id: "talk", "aria-label": t("talkTitle") },
    h("h3", {}, t("talkTitle")),
    h("ol", { id: "talk-lines", reversed: true }, lines.slice().reverse().map((line) => h("li", {
      class: `said team-${teamOf(line.seat)}`, "data-kind": line.kind, "data-seat": line.seat },
    h("span", { class: "trick-no" }, t("trickNo", { n: line.trick })), " ",
    saidLine(who(line.seat), line.kind === "declaration" ? `${line.words} (+${line.points})` : line.words)))));
}

function lastTrickView(table, v, hold) {
  const last = v.tricks[v.tricks.length - 1];
  if (!last || hold) return null;
  const button = h("button", { class: "ghost small", id: "last-trick", onclick: () => { live.showLast = !live.showLast; rerender(); } },
    live.showLast ? t("hideLastTrick") : t("lastTrick"));
  if (!live.showLast) return h("div", { class: "row" }, button);
  return h("div", { class: "row last4", id: "last" }, button,
    last.cards.map((c, i) => {
      const seat = (last.leader + i) % 4;
      const node = cardEl(c, { small: true });
      if (seat === last.winner) node.classList.add("winner");
      return h("figure", { class: "last-card" }, node, h("figcaption", {}, seat === table.you ? t("you") : nameOf(table, seat)));
    }),
    last.signal ? h("span", { class: "bubble signal" }, saidLine(nameOf(table, last.leader), signalText(last.signal))) : null);
}

/** Leave the table for good: a bot takes the seat of a running deal (docs/protocol-four.md, "Leaving"). */
function leave4(table) {
  send({ type: "leave_table", table_id: table.id });
  live.left.add(table.id);
  live.confirmLeave = null;
  forgetTable4(table.id);
  delete live.tables[table.id];
  location.hash = "#/lobby";
  toast(t("leftTable"), 4000);
}

function leaveControls4(table) {
  const seated = table.you !== null;
  const inMatch = Boolean(table.match && !table.match.end);
  const running = seated && (table.status === "playing" || (inMatch && table.status === "finished"));
  if (live.confirmLeave === table.id && running) {
    return h("div", { class: "confirm-backdrop", id: "leave-backdrop" },
      h("div", { class: "row confirm", id: "leave-confirm", role: "alertdialog", "aria-modal": "true", "aria-label": t("leaveConfirm4") },
        h("span", {}, t("leaveConfirm4")),
        h("button", { id: "leave-yes", onclick: () => leave4(table) }, t("leaveForfeit")),
        h("button", { class: "ghost", id: "leave-no", onclick: () => { live.confirmLeave = null; rerender(); } }, t("stay"))));
  }
  return h("div", { class: "row" }, h("button", { class: "ghost", id: "leave", onclick: () => {
    if (!running) {
      leave4(table);
      return;
    }
    live.confirmLeave = table.id;
    rerender();
    document.getElementById("leave-no")?.focus();
  } }, t("leave")));
}
