// Italian-suited cards drawn as SVG: cups (K), coins (D), swords (S), batons (B); each named in the page's language.
import { cardLetter, cardName, t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
const SUIT = {
  K: { color: "#b3261e" },
  D: { color: "#b8860b" },
  S: { color: "#1d4f91" },
  B: { color: "#2e6b2e" },
};
export const POINTS = { AS: 3, "3": 1, "2": 1, KRALJ: 1, KAVAL: 1, FANT: 1, "7": 0, "6": 0, "5": 0, "4": 0 };

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function suitSymbol(suit, g) {
  const c = SUIT[suit].color;
  if (suit === "D") {
    el("circle", { cx: 50, cy: 75, r: 24, fill: "#f3cf55", stroke: c, "stroke-width": 4 }, g);
    el("circle", { cx: 50, cy: 75, r: 12, fill: "none", stroke: c, "stroke-width": 3 }, g);
    el("circle", { cx: 50, cy: 75, r: 3, fill: c }, g);
  } else if (suit === "K") {
    el("path", { d: "M28 52 H72 Q70 80 54 86 V96 H64 V102 H36 V96 H46 V86 Q30 80 28 52 Z",
      fill: "#e8a09a", stroke: c, "stroke-width": 4, "stroke-linejoin": "round" }, g);
    el("ellipse", { cx: 50, cy: 52, rx: 22, ry: 5, fill: c }, g);
  } else if (suit === "S") {
    el("path", { d: "M50 44 L56 58 L56 96 L44 96 L44 58 Z", fill: "#cfd8e3", stroke: c, "stroke-width": 3 }, g);
    el("rect", { x: 32, y: 94, width: 36, height: 6, rx: 3, fill: c }, g);
    el("rect", { x: 46, y: 100, width: 8, height: 10, fill: "#6b4a2b" }, g);
  } else {
    el("path", { d: "M44 46 Q50 40 56 46 L60 100 Q50 108 40 100 Z", fill: "#8fbf6a", stroke: c, "stroke-width": 4 }, g);
    for (const y of [60, 75, 90]) el("circle", { cx: 50, cy: y, r: 4, fill: c }, g);
  }
}

/** Return an SVG element for the card named like "D AS" (or a card back when name is null). */
export function cardSvg(name) {
  // The element around the drawing carries the card's name; the drawing itself is decoration.
  const svg = el("svg", { viewBox: "0 0 100 150", "aria-hidden": "true", focusable: "false" });
  if (!name) {
    el("rect", { x: 2, y: 2, width: 96, height: 146, rx: 9, fill: "#7a1c17", stroke: "#f4f1e8", "stroke-width": 3 }, svg);
    el("rect", { x: 12, y: 12, width: 76, height: 126, rx: 6, fill: "none", stroke: "#d9a21b", "stroke-width": 2,
      "stroke-dasharray": "6 4" }, svg);
    return svg;
  }
  const [suit, rank] = name.split(" ");
  const color = SUIT[suit].color;
  el("rect", { x: 2, y: 2, width: 96, height: 146, rx: 9, fill: "#fbf7ee", stroke: "#333", "stroke-width": 2 }, svg);
  // The corner letter in the page's language (an Italian king is R); a two-letter one (Croatian Kn) is narrower.
  const letter = cardLetter(rank);
  for (const [x, y, rot] of [[16, 30, 0], [84, 120, 180]]) {
    const label = el("text", { x, y, fill: color, "font-size": letter.length > 1 ? 22 : 28, "font-weight": 800,
      "text-anchor": "middle", "font-family": "system-ui, sans-serif", transform: rot ? `rotate(180 ${x} ${y - 10})` : "" },
    svg);
    label.textContent = letter;
  }
  suitSymbol(suit, el("g", {}, svg));
  if (POINTS[rank] > 0) {
    el("text", { x: 50, y: 138, "font-size": 12, "text-anchor": "middle", fill: "#555",
      "font-family": "system-ui, sans-serif" }, svg).textContent = "•".repeat(POINTS[rank]);
  }
  return svg;
}

/** Return a card element named for screen readers: a button for a playable card, an image otherwise.
 * ``onPlay`` runs for a playable card; ``onRefused`` for a card of the hand that cannot be played now. */
export function cardEl(name, { playable = false, dim = false, small = false, onPlay = null, onRefused = null } = {}) {
  const node = document.createElement(playable ? "button" : "div");
  node.className = `card${playable ? " legal" : ""}${dim ? " dim" : ""}${small ? " small" : ""}`;
  if (name) node.dataset.card = name;
  node.appendChild(cardSvg(name));
  const label = name ? cardName(name) : t("faceDown");
  node.setAttribute("aria-label", label);
  node.title = label;
  if (playable && onPlay) {
    node.type = "button";
    node.addEventListener("click", () => onPlay(name));
  } else {
    node.setAttribute("role", "img");
    if (onRefused) node.addEventListener("click", () => onRefused(name));
  }
  return node;
}
