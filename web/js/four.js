// What the four-player pages share (table4.js, replay4.js, lobby4.js): where each seat sits on the screen, the two
// partnerships and their colours, and declarations and signals said as players say them at the table
// (docs/four-player-rules.md, docs/protocol-four.md).
import { POINTS } from "./cards.js";
import { h } from "./dom.js";
import { suitOfName, t } from "./i18n.js";

export const GAME = "partnership";
export const SEATS4 = [0, 1, 2, 3];
export const TARGETS4 = [0, 21, 31, 41]; // a single deal, or a match to 21, 31 or 41 (PARTNERSHIP_TARGETS)
export const TRICKS4 = 10;
const LAST_TRICK_BONUS = 3; // thirds: 35 thirds a deal with the last trick's 3

/** Return the points (thirds) a four-card trick carried, the last trick's bonus included (``n``: its number). */
export function trickGain4(cards, n) {
  return cards.reduce((sum, c) => sum + POINTS[c.split(" ")[1]], 0) + (n === TRICKS4 ? LAST_TRICK_BONUS : 0);
}

/** Return the partnership of ``seat``: 0 for seats 0 and 2, 1 for seats 1 and 3. */
export function teamOf(seat) {
  return seat % 2;
}

/** Return where ``seat`` sits on the screen of the player at ``me`` (a spectator sees seat 0 at the bottom).
 * Play goes 0 → 1 → 2 → 3, counter-clockwise as at an Italian table: the next player is on your right. */
export function placeOf(seat, me) {
  return ["bottom", "right", "top", "left"][(seat - (me ?? 0) + 4) % 4];
}

/** Return a declaration as it is said at the table: "napoletana of Coins", "three Aces (no Cups)", "four 3s". */
export function declarationText(d) {
  // The suit as the phrase needs it: "napoletana dinarjev", "bez kupa" take the genitive where the language has one.
  if (d.kind === "napoletana") return t("decl_napoletana", { suit: suitOfName(d.suit) });
  if (d.kind === "three") return t(`decl_three_${d.rank}`, { suit: suitOfName(d.missing) });
  return t(`decl_four_${d.rank}`);
}

/** Return a declaration with its points: "napoletana of Coins (+3)". */
export function declarationWithPoints(d) {
  const pts = d.points ?? (d.kind === "four" ? 4 : 3);
  return `${declarationText(d)} (+${pts})`;
}

/** Return a signal's word in the page's language ("busso (knock)", "tučem"). */
export function signalText(signal) {
  return t(`signal_${signal}`);
}

/** Return the line a seat says: "Ana: napoletana of Coins, three Aces (no Cups)". */
export function saidLine(name, words) {
  return t("saidBy", { name, words });
}

/** Return a key that tells two declarations apart (the same JSON as the protocol's). */
export function declarationKey(d) {
  return `${d.kind}:${d.suit ?? ""}:${d.rank ?? ""}:${d.missing ?? ""}`;
}

/** Return a declaration as it is sent with ``play`` (without its derived points). */
export function declarationToSend(d) {
  const out = { kind: d.kind };
  if (d.suit !== undefined) out.suit = d.suit;
  if (d.rank !== undefined) out.rank = d.rank;
  if (d.missing !== undefined) out.missing = d.missing;
  return out;
}

/** Return everything said at the table this deal, oldest first: each seat's declarations (with its first card, in
 * play order) and each lead's signal, as {seat, trick (1-based), kind: "declaration"|"signal", words, points}. */
export function tableTalk(v) {
  const lines = [];
  const first = v.first_leader ?? v.tricks?.[0]?.leader ?? 0;
  for (let i = 0; i < 4; i += 1) {
    const seat = (first + i) % 4;
    const said = v.declarations?.[seat] ?? [];
    if (said.length) {
      lines.push({ seat, trick: 1, kind: "declaration", words: said.map(declarationText).join(", "),
        points: said.reduce((sum, d) => sum + (d.points ?? 0), 0) });
    }
  }
  (v.tricks ?? []).forEach((tr, i) => {
    if (tr.signal) lines.push({ seat: tr.leader, trick: i + 1, kind: "signal", words: signalText(tr.signal), signal: tr.signal });
  });
  if (v.signal && (v.table ?? []).length) {
    lines.push({ seat: v.leader, trick: (v.tricks ?? []).length + 1, kind: "signal", words: signalText(v.signal), signal: v.signal });
  }
  return lines;
}

/** Return a partnership's colour chip (a dot and its name, "Blue"/"Red": the colour is never the only sign). */
export function teamChip(team) {
  return h("span", { class: `team-chip team-${team}` }, h("span", { class: "dot", "aria-hidden": "true" }), t(`team_${team}`));
}

/** Return a single deal's or a match's name: "One deal", "To 31". */
export function formatName4(target) {
  return target ? t("toPoints", { n: target }) : t("oneDeal");
}
