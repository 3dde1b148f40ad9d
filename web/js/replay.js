// A finished game move by move (#/replay/ID): both hands, the table, the score, every trick with its draws.
import { analysisPanel, analysisStep } from "./analysis.js";
import { call, currentUser, fetchAuthed, token } from "./api.js";
import { cardEl } from "./cards.js";
import { errorBox, fill, h, playerLink } from "./dom.js";
import { points, pointsText, t, tx } from "./i18n.js";
import { fillStep4, playersLine4 } from "./replay4.js";
import { trickGain } from "./table.js";

// The loaded game and the step shown survive re-renders (a language switch); step k = k moves played.
// Only a loaded game is kept (for the same signed-in user): a refusal is asked again next time.
let shown = { key: null, record: null, step: 0, error: null };

/** Return the replay page of game ``id``; the board fills in when the server answers. */
export function replayView(id) {
  const page = h("section", { class: "page replay", id: "replay-page" }, h("h1", {}, `${t("replay")} #${id}`));
  const body = h("div", { id: "replay-body" }, h("p", {}, "…"));
  page.append(body);
  const key = `${id}|${token() ?? ""}`;
  if (shown.key === key && shown.record) {
    fillBody(body);
    return page;
  }
  shown = { key, record: null, step: 0, error: null };
  if (!/^\d{1,18}$/.test(id)) { // e.g. a table's id pasted here: games are numbered
    shown.error = Object.assign(new Error(t("noSuchGame")), { status: 404, localized: true });
    fillBody(body);
    return page;
  }
  call("GET", `/api/games/${encodeURIComponent(id)}/replay`)
    .then((record) => { if (shown.key === key) shown.record = record; })
    .catch((e) => { if (shown.key === key) shown.error = e; })
    .finally(() => { if (shown.key === key) fillBody(body); });
  return page;
}

function fillBody(body) {
  if (shown.error) {
    // replaceChildren would write a null as the text "null": only the nodes that apply.
    fill(body, ...[errorBox(shown.error, "replay-error", "game"),
      shown.error.status === 401 ? h("p", {}, h("a", { href: "#/login" }, t("signin"))) : null].filter(Boolean));
    return;
  }
  const r = shown.record;
  const n = r.moves.length;
  const four = r.game === "partnership"; // a deal for four (replay4.js): all four hands, the trick at each side
  const board = h("div", { class: "table-area", id: "replay-board" });
  const slider = h("input", { type: "range", id: "replay-slider", min: 0, max: n, value: shown.step, "aria-label": t("move") });
  const counter = h("span", { id: "replay-counter", class: "counter" });
  const go = (k) => {
    shown.step = Math.max(0, Math.min(n, k));
    slider.value = shown.step;
    // Step k shows the position before the (k+1)-th card, that card marked in its hand: the counter names it.
    counter.textContent = shown.step < n ? `${t("move")} ${shown.step + 1} / ${n}` : t("replayEnd", { n });
    if (four) fillStep4(board, r, shown.step, currentUser()?.username);
    else fill(board, ...drawStep(r, shown.step));
    analysisStep(board, shown.step);
    for (const [btn, off] of [[first, true], [prev, true], [next, false], [last, false]]) {
      btn.disabled = off ? shown.step === 0 : shown.step === n;
    }
  };
  const button = (id, label, text, k) => h("button", { type: "button", class: "ghost", id, "aria-label": label, title: label, onclick: () => go(k()) }, text);
  const first = button("replay-first", t("firstMove"), "«", () => 0);
  const prev = button("replay-prev", t("stepBack"), "◀", () => shown.step - 1);
  const next = button("replay-next", t("stepForward"), "▶", () => shown.step + 1);
  const last = button("replay-last", t("lastMove"), "»", () => n);
  slider.addEventListener("input", () => go(Number(slider.value)));
  fill(body,
    four ? playersLine4(r)
      : h("p", { class: "players-line" }, playerLink(r.players[0]), ` ${t("versus")} `, playerLink(r.players[1]), ` · ${t(r.variant)}`),
    h("div", { class: "row controls", id: "replay-controls" }, first, prev, counter, next, last, slider),
    h("p", { class: "hint keys-only" }, t("replayKeys")),
    board,
    analysisPanel(r), // a four-player deal's is exact (double-dummy)
    recordPanel(r.id));
  go(shown.step);
}

/** Return the position before move ``k`` (k = n: after the last move) from the server's record. */
function positionAt(r, k) {
  const n = r.moves.length;
  const hands = [[], []];
  if (k < n) {
    const m = r.moves[k];
    hands[m.seat] = m.hand;
    hands[1 - m.seat] = m.opponent_hand;
    return { hands, table: m.table, points: m.points, next: m };
  }
  if (n === 0) return { hands: r.hands, table: [], points: r.points, next: null };
  const m = r.moves[n - 1];
  hands[m.seat] = m.hand.filter((c) => c !== m.card);
  hands[1 - m.seat] = [...m.opponent_hand];
  if (m.table.length === 0) return { hands, table: [m.card], points: r.points, next: null };
  for (const [seat, card] of r.tricks[r.tricks.length - 1]?.draws ?? []) hands[seat].push(card);
  return { hands, table: [], points: r.points, next: null };
}

function drawStep(r, k) {
  const pos = positionAt(r, k);
  // Right after a trick's second card the trick stays on the table, its winner's card marked, as at the table.
  const taken = k > 0 && k % 2 === 0 ? r.tricks[k / 2 - 1] : null;
  const done = r.tricks.slice(0, Math.floor(k / 2)); // two cards a trick
  const drawn = done.reduce((sum, tr) => sum + tr.draws.length, 0);
  const stock = Math.max(0, r.deck.length - r.hands[0].length - r.hands[1].length - drawn);
  const me = currentUser()?.username;
  const bottom = r.players[1] === me && r.players[0] !== me ? 1 : 0;
  const seatBlock = (seat) => h("div", { class: "seat" },
    h("p", { class: `seat-name${pos.next?.seat === seat ? " to-move" : ""}`, id: `replay-score-${seat}` },
      `${r.players[seat]}: ${pointsText(pos.points[seat])}`),
    h("div", { class: "hand", id: `replay-hand-${seat}`, "data-seat": seat },
      pos.hands[seat].map((c) => {
        const el = cardEl(c, { small: true });
        if (pos.next?.seat === seat && pos.next.card === c) el.classList.add("next");
        return el;
      })));
  const nextLine = pos.next
    ? h("div", { id: "replay-next-move", class: "turn next-line" }, `${r.players[pos.next.seat]} ${t("plays")}`, cardEl(pos.next.card, { small: true }))
    : h("p", { id: "replay-result", class: "turn mine next-line" }, resultLine(r));
  return [
    seatBlock(1 - bottom),
    h("div", { class: "center" },
      h("div", { class: "stock" }, stock ? cardEl(null, { small: true }) : null, h("div", { id: "replay-stock" }, `${t("stock")}: ${stock}`)),
      h("div", { class: `trick${taken ? " held" : ""}`, id: "replay-table" }, taken ? takenCards(taken) : pos.table.map((c) => cardEl(c)))),
    taken ? h("p", { class: "taken", id: "replay-taken" }, `${t("theyTookTrick", { name: r.players[taken.winner] })} (+${points(trickGain(taken.cards, k / 2))})`) : null,
    nextLine,
    seatBlock(bottom),
    h("section", { class: "panel" }, h("h2", {}, `${t("tricks")} (${done.length})`),
      h("ol", { class: "tricks", id: "replay-tricks", reversed: true },
        done.map((tr, i) => trickItem(r, tr, i)).reverse())),
  ];
}

function takenCards(tr) {
  return tr.cards.map((c, i) => {
    const node = cardEl(c);
    if ((tr.leader + i) % 2 === tr.winner) node.classList.add("winner");
    return node;
  });
}

function resultLine(r) {
  const why = r.reason && r.reason !== "finished" ? ` · ${r.players[1 - r.winner]} ${tx("reason", r.reason)}` : "";
  const winner = r.winner === null || r.winner === undefined ? "—" : r.players[r.winner];
  // Players count whole points (the thirds are dropped); the exact score follows.
  const whole = r.points.map((p) => (p === null || p === undefined ? "—" : Math.floor(p / 3)));
  const exact = r.points.every((p) => Number.isInteger(p)) ? ` (${t("exactScore")} ${points(r.points[0])} : ${points(r.points[1])})` : "";
  const unrated = r.rated === false ? ` · ${t("notRatedShort")}` : "";
  return `${t("winner")}: ${winner} · ${whole[0]} : ${whole[1]}${exact}${why}${unrated}`;
}

function trickItem(r, tr, i) {
  return h("li", { class: "trick-row", "data-trick": i + 1, value: i + 1 },
    h("span", { class: "trick-no" }, `${i + 1}.`),
    h("div", { class: "trick-cards" }, tr.cards.map((c) => cardEl(c, { small: true }))),
    h("span", { class: "trick-winner" }, `→ ${r.players[tr.winner]}`),
    tr.draws.length ? h("div", { class: "trick-draws" },
      tr.draws.map(([seat, c]) => h("span", { class: "draw" }, `${r.players[seat]} ${t("drew")}`, cardEl(c, { small: true })))) : null);
}

function recordPanel(id) {
  const out = h("pre", { id: "record-text", class: "record", hidden: true });
  const status = h("span", { id: "record-status", role: "status" });
  const copy = async () => {
    try {
      const text = await (await fetchAuthed(`/api/games/${encodeURIComponent(id)}/record.txt`)).text();
      out.textContent = text;
      out.hidden = false;
      try {
        await navigator.clipboard.writeText(text);
        status.textContent = t("copied");
      } catch {
        status.textContent = t("copyByHand"); // no clipboard permission: the text is shown to select
      }
    } catch (e) {
      fill(status, errorBox(e, null, "game"));
    }
  };
  return h("section", { class: "panel" },
    h("div", { class: "row" }, h("button", { type: "button", id: "copy-record", onclick: copy }, t("copyRecord")), status), out);
}

document.addEventListener("keydown", (e) => {
  // Arrow keys step through the replay (a focused slider moves by itself).
  if (!location.hash.startsWith("#/replay/") || !shown.record) return;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
  const ids = { ArrowRight: "replay-next", ArrowLeft: "replay-prev", Home: "replay-first", End: "replay-last" };
  const btn = ids[e.key] && document.getElementById(ids[e.key]);
  if (btn && !btn.disabled) {
    e.preventDefault();
    btn.click();
  }
});
