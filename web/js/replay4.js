// A finished four-player deal move by move (#/replay/ID of a `"game": "partnership"` record; replay.js hands it
// here): all four hands face up, the trick building at each player's side, both partnerships' points and
// declarations, what each player said, and every trick. The record is read as the table's result is shaped
// (docs/protocol-four.md): `players` (4), `hands` (4 × 10, as dealt), `moves` ({seat, card, declarations, signal}
// in play order), `points`/`declared`/`score`/`winner` per partnership, `cappotto`; the tricks are rebuilt here
// from the moves (the highest card of the suit led takes), so nothing else of the record is needed.
import { cardEl } from "./cards.js";
import { fill, h, playerLink } from "./dom.js";
import {
  declarationWithPoints, placeOf, saidLine, SEATS4, signalText, teamChip, teamOf, trickGain4,
} from "./four.js";
import { pointsText, t } from "./i18n.js";

const ORDER = ["3", "2", "AS", "KRALJ", "KAVAL", "FANT", "7", "6", "5", "4"]; // strongest first (RULES.md)

/** Return the seat that takes a trick of ``cards`` (in play order) led by ``leader``: the highest of the suit led. */
export function winnerOf(leader, cards) {
  const suit = cards[0].split(" ")[0];
  let best = 0;
  cards.forEach((c, i) => {
    const [s, rank] = c.split(" ");
    if (s === suit && ORDER.indexOf(rank) < ORDER.indexOf(cards[best].split(" ")[1])) best = i;
  });
  return (leader + best) % 4;
}

/** Return the deal's tricks rebuilt from its moves: {leader, cards, winner, signal, moves: [index of each card]}. */
export function tricksOf(record) {
  const tricks = [];
  for (let i = 0; i + 4 <= record.moves.length; i += 4) {
    const moves = record.moves.slice(i, i + 4);
    const leader = moves[0].seat;
    tricks.push({ leader, cards: moves.map((m) => m.card), winner: winnerOf(leader, moves.map((m) => m.card)),
      signal: moves[0].signal ?? null });
  }
  return tricks;
}

/** Return the position before move ``k``: hands, the trick on the table (or the trick just finished), points so
 * far (thirds per partnership), declarations made, and the next move. */
function positionAt(r, tricks, k) {
  const hands = r.hands.map((hand) => [...hand]);
  const declared = [[], [], [], []];
  for (const m of r.moves.slice(0, k)) {
    hands[m.seat] = hands[m.seat].filter((c) => c !== m.card);
    if (m.declarations?.length) declared[m.seat].push(...m.declarations);
  }
  const done = Math.floor(k / 4);
  const thirds = [0, 0];
  tricks.slice(0, done).forEach((tr, i) => { thirds[teamOf(tr.winner)] += trickGain4(tr.cards, i + 1); });
  const onTable = r.moves.slice(done * 4, k);
  // Right after a trick's fourth card the trick stays on the table, its taker's card marked.
  const taken = k > 0 && k % 4 === 0 ? tricks[done - 1] : null;
  return { hands, declared, thirds, done, taken, table: taken ? [] : onTable, next: r.moves[k] ?? null };
}

/** Return the board of step ``k`` (the bottom seat: the signed-in player's if they played, else seat 0). */
export function drawStep4(r, k, me) {
  const tricks = tricksOf(r);
  const pos = positionAt(r, tricks, k);
  const bottom = Math.max(0, r.players.indexOf(me));
  const slots = {};
  if (pos.taken) pos.taken.cards.forEach((c, i) => { slots[(pos.taken.leader + i) % 4] = c; });
  else pos.table.forEach((m) => { slots[m.seat] = m.card; });
  const seat = (s) => h("div", { class: `rseat rseat-${placeOf(s, bottom)} team-${teamOf(s)}${pos.next?.seat === s ? " to-move" : ""}`,
    id: `replay-seat-${placeOf(s, bottom)}`, "data-seat": s },
  h("p", { class: "seat-name" }, teamChip(teamOf(s)), " ", r.players[s]),
  pos.declared[s].length ? h("p", { class: "bubble decl" }, pos.declared[s].map(declarationWithPoints).join(", ")) : null,
  h("div", { class: "hand", id: `replay-hand-${s}`, "data-seat": s }, pos.hands[s].map((c) => {
    const node = cardEl(c, { small: true });
    if (pos.next?.seat === s && pos.next.card === c) node.classList.add("next");
    return node;
  })));
  const cross = h("div", { class: "cross", id: "replay-table" }, SEATS4.map((s) => {
    const node = slots[s] ? cardEl(slots[s]) : null;
    if (node && pos.taken && s === pos.taken.winner) node.classList.add("winner");
    const leader = pos.taken ? pos.taken.leader : pos.table[0]?.seat;
    return h("div", { class: `slot slot-${placeOf(s, bottom)}${node && s === leader ? " led" : ""}`, "data-seat": s }, node);
  }));
  const declaredPts = (team) => pos.declared.reduce((sum, ds, s) => sum + (teamOf(s) === team
    ? ds.reduce((x, d) => x + (d.points ?? (d.kind === "four" ? 4 : 3)), 0) : 0), 0);
  const score = (team) => h("span", { class: `team-score team-${team}`, id: `replay-score-${team}` }, teamChip(team), " ",
    `${r.players[team]} & ${r.players[team + 2]}: ${pointsText(pos.thirds[team])} · ${t("declaredPoints")} +${declaredPts(team)}`);
  const next = pos.next;
  const said = next ? [...(next.declarations ?? []).map(declarationWithPoints), next.signal ? signalText(next.signal) : null].filter(Boolean) : [];
  return [
    h("div", { class: "scoreboard", id: "replay-scores" }, score(0), score(1)),
    h("div", { class: "replay4-board", id: "replay-board4" }, SEATS4.map(seat), cross),
    pos.taken ? h("p", { class: "taken", id: "replay-taken" },
      `${t("theyTookTrick", { name: r.players[pos.taken.winner] })} (+${pointsText(trickGain4(pos.taken.cards, pos.done))})`) : null,
    next ? h("div", { id: "replay-next-move", class: "turn next-line" }, `${r.players[next.seat]} ${t("plays")}`, cardEl(next.card, { small: true }),
      said.length ? h("span", { class: "bubble", id: "replay-said" }, said.join(", ")) : null)
      : h("p", { id: "replay-result", class: "turn mine next-line" }, resultLine4(r)),
    h("section", { class: "panel" }, h("h2", {}, `${t("tricks")} (${pos.done})`),
      h("ol", { class: "tricks", id: "replay-tricks", reversed: true },
        tricks.slice(0, pos.done).map((tr, i) => trickItem4(r, tr, i)).reverse())),
  ];
}

function resultLine4(r) {
  const side = (team) => `${r.players[team]} & ${r.players[team + 2]}`;
  const winner = r.winner === null || r.winner === undefined ? t("dealDrawn") : `${t("winner")}: ${side(r.winner)}`;
  const score = r.score ?? r.points;
  const parts = [winner, `${score[0]} : ${score[1]}`];
  if (r.declared && (r.declared[0] || r.declared[1])) parts.push(`${t("declaredPoints")} +${r.declared[0]} : +${r.declared[1]}`);
  if (r.cappotto) parts.push(t("cappottoLine", { name: side(r.winner) }));
  if (r.rated === false) parts.push(t("notRatedShort"));
  return parts.join(" · ");
}

function trickItem4(r, tr, i) {
  return h("li", { class: "trick-row", "data-trick": i + 1, value: i + 1 },
    h("span", { class: "trick-no" }, `${i + 1}.`),
    h("div", { class: "trick-cards" }, tr.cards.map((c, k) => {
      const node = cardEl(c, { small: true });
      if ((tr.leader + k) % 4 === tr.winner) node.classList.add("winner");
      return node;
    })),
    tr.signal ? h("span", { class: "bubble signal" }, saidLine(r.players[tr.leader], signalText(tr.signal))) : null,
    h("span", { class: "trick-winner" }, `→ ${r.players[tr.winner]}`));
}

/** Return the players line of a four-player record: "ana & bot-b vs bot-a & bot-c · Tressette for four". */
export function playersLine4(r) {
  const side = (team) => h("span", { class: `side team-${team}` }, teamChip(team), " ", playerLink(r.players[team]), " & ",
    playerLink(r.players[team + 2]));
  return h("p", { class: "players-line" }, side(0), ` ${t("versus")} `, side(1), ` · ${t("partnershipGame")}`);
}

/** Fill ``board`` with step ``k`` of a four-player record. */
export function fillStep4(board, r, k, me) {
  fill(board, ...drawStep4(r, k, me));
}
