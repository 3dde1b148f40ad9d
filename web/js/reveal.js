// The short reveal of the two cards drawn after a trick: a small panel over the emptied trick, beside the
// stock. It never takes clicks (pointer-events: none) and lasts REVEAL_MS or until the next card is played.
import { cardEl } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

export const REVEAL_MS = 2500;
const FADE_MS = 300;
let shown = null; // { tableId, trick, draws, since, timer }

/** Start revealing `draws` ([[seat, card], ...], the trick winner's first) of trick number `trick`. */
export function revealDraws(tableId, trick, draws) {
  hideDraws();
  if (!draws.length) return; // the stock is empty: nothing was drawn
  shown = { tableId, trick, draws, since: performance.now(), timer: setTimeout(fadeOut, REVEAL_MS) };
}

/** Stop the reveal at once (the next card was played, the deal ended); only for `tableId` when given. */
export function hideDraws(tableId = null) {
  if (!shown || (tableId !== null && shown.tableId !== tableId)) return;
  clearTimeout(shown.timer);
  shown = null;
  document.getElementById("draw-reveal")?.remove();
}

function fadeOut() {
  shown = null;
  const node = document.getElementById("draw-reveal");
  if (!node) return;
  if (matchMedia("(prefers-reduced-motion: reduce)").matches) {
    node.remove();
    return;
  }
  node.classList.add("leaving");
  setTimeout(() => node.remove(), FADE_MS);
}

/** Return the reveal panel for `table` (null when it has none showing): players read "you" and
 * "opponent", spectators (`table.you === null`) the players' names. */
export function drawRevealEl(table) {
  if (!shown || shown.tableId !== table.id) return null;
  const label = (seat) => (table.you === null ? [h("span", { class: "who" }, table.players[seat]?.username ?? "—"), ` ${t("drew")}`]
    : seat === table.you ? t("youDrew") : t("theyDrew"));
  const node = h("div", { class: "draw-reveal", id: "draw-reveal", role: "group", "data-trick": shown.trick, "aria-label": t("drawnCards") },
    shown.draws.map(([seat, card]) => h("figure", { class: "drawn", "data-seat": seat },
      h("figcaption", {}, label(seat)), cardEl(card, { small: true }))));
  // A redraw (any table, lobby or chat message) continues the entrance animation instead of restarting it.
  node.style.setProperty("--since", `${Math.round(performance.now() - shown.since)}ms`);
  return node;
}
