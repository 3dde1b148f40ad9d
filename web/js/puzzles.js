// The puzzle page (#/puzzles): an endgame from a real game near your puzzle rating; find the winning card.
// The server judges every card (POST /api/puzzles/ID/attempt) and answers with the opponent's reply, or
// at the end with the rating change, the themes and, for a wrong card, the line that beats it.
import { call, query, token } from "./api.js";
import { cardEl } from "./cards.js";
import { errorBox, fill, h } from "./dom.js";
import { points, t } from "./i18n.js";
import { announce, toast } from "./live.js";
import { pt, themeText } from "./puzzle_text.js";
import { rulesButton } from "./rules.js";

if (!document.getElementById("puzzles-css")) {
  document.head.append(h("link", { id: "puzzles-css", rel: "stylesheet", href: "puzzles.css" }));
}

const HOLD_MS = 1100; // how long your card and the opponent's reply stay in the trick before the next position
// The page's state survives redraws (a language switch) and coming back to the page.
const state = { variant: "tressette", puzzle: null, you: null, cards: [], position: null, hold: null, result: null,
  busy: false, status: null, error: null, loaded: false, seq: 0, token: null };
let root = null;

/** Return the puzzle page; it loads the player's open puzzle (or a new one) unless one is on the page. */
export function puzzleView() {
  root = h("section", { class: "panel page puzzle-page", id: "puzzle-page" });
  if (state.loaded && state.token === token()) draw(); // another account's puzzle is never shown
  else load();
  return root;
}

async function load() {
  const seq = ++state.seq;
  Object.assign(state, { puzzle: null, result: null, hold: null, last: null, busy: true, error: null, status: null, token: token() });
  draw();
  try {
    const data = await call("GET", `/api/puzzles/next${query({ variant: state.variant })}`);
    if (seq !== state.seq) return;
    const p = data.puzzle;
    Object.assign(state, { puzzle: p, you: data.you, cards: p ? p.cards : [], position: p ? p.position : null,
      busy: false, loaded: true, status: p ? findKey(p) : null });
  } catch (e) {
    if (seq !== state.seq) return;
    Object.assign(state, { busy: false, error: e, loaded: false });
  }
  draw();
}

function findKey(p) {
  return p.variant === "kifameno" ? "find_kifameno" : "find";
}

async function play(card) {
  const p = state.puzzle;
  if (!p || state.busy || state.result || state.position.to_move !== "you") return;
  state.busy = true;
  state.hold = [...state.position.inplay.map((c) => ({ card: c, you: false })), { card, you: true }];
  state.status = "thinking";
  draw();
  let answer;
  try {
    answer = await call("POST", `/api/puzzles/${p.id}/attempt`, { cards: [...state.cards, card] });
  } catch (e) {
    state.busy = false;
    state.hold = null;
    state.status = findKey(p);
    toast(["not_served", "answered", "out_of_step"].includes(e.code) ? pt(`err_${e.code}`) : pt("err_other"), 4000);
    if (["not_served", "answered", "out_of_step"].includes(e.code)) state.loaded = false;
    draw();
    return;
  }
  if (answer.rating) {
    state.you = { ...state.you, rating: answer.rating.after, rd: answer.rating.rd, provisional: answer.rating.provisional };
  }
  if (answer.result === "wrong") {
    Object.assign(state, { hold: null, busy: false, result: answer, status: "wrong" });
  } else {
    state.cards = [...state.cards, card];
    // Your card and the reply stay on the table a moment: the trick as it was completed.
    const start = state.position.inplay.map((c) => ({ card: c, you: false }));
    const step = answer.moves.slice(answer.moves.length - 1 - answer.reply.length);
    const ends = step.findIndex((m) => m.took !== undefined);
    state.hold = [...start, ...(ends < 0 ? step : step.slice(0, ends + 1))];
    state.last = ends < 0 ? null : state.hold; // shown small afterwards: what the opponent answered
    draw();
    await new Promise((resolve) => { setTimeout(resolve, HOLD_MS); });
    Object.assign(state, { hold: null, busy: false, position: answer.position,
      result: answer.result === "solved" ? answer : null,
      status: answer.result === "solved" ? "solved" : "right" });
  }
  announce(pt(state.status));
  draw();
}

function draw() {
  if (!root) return;
  const p = state.puzzle;
  const head = h("div", { class: "row puzzle-top" },
    h("h1", {}, pt("title")),
    h("label", {}, t("variant"), " ", variantSelect()),
    state.you ? youRating(state.you) : null);
  if (state.error) return fill(root, head, errorBox(state.error));
  if (!p) return fill(root, head, h("p", { id: "puzzle-none" }, state.busy ? "…" : pt(state.variant === "any" ? "none_any" : "none")));
  fill(root, head, board(p), state.result ? resultView(p, state.result) : null,
    h("p", { class: "hint keys-only" }, pt("keys")));
}

/** Return the player's puzzle rating: "1450?" and a word while it is provisional (its deviation still high). */
function youRating(you) {
  return h("span", { class: "puzzle-you", id: "puzzle-you" }, `${pt("rating")}: ${Math.round(you.rating)}`,
    you.provisional ? h("span", { class: "provisional", id: "puzzle-provisional", title: pt("provisional") },
      `? (${pt("provisional")})`) : null);
}

function variantSelect() {
  const select = h("select", { id: "puzzle-variant" },
    [["tressette", t("tressette")], ["kifameno", t("kifameno")], ["any", pt("any")]]
      .map(([v, label]) => h("option", { value: v, selected: v === state.variant }, label)));
  select.addEventListener("change", () => { state.variant = select.value; load(); });
  return select;
}

function board(p) {
  const pos = state.position;
  const myTurn = !state.busy && !state.result && pos.to_move === "you";
  const legal = new Set(pos.legal);
  const wrongCard = state.result?.result === "wrong" ? state.result.refutation[0].card : null; // it stays on the table
  const shown = state.hold ? new Set(state.hold.filter((m) => m.you).map((m) => m.card)) : new Set();
  const oppPlayed = state.hold ? new Set(state.hold.filter((m) => !m.you).map((m) => m.card)) : new Set();
  const mine = pos.hand.filter((c) => !shown.has(c) && c !== wrongCard)
    .map((c) => cardEl(c, { playable: myTurn && legal.has(c), dim: myTurn && !legal.has(c), onPlay: play }));
  const theirs = pos.opponent_hand.filter((c) => !oppPlayed.has(c)).map((c) => cardEl(c, { small: true }));
  const cards = state.hold ?? [...pos.inplay.map((c) => ({ card: c, you: false })),
    ...(wrongCard ? [{ card: wrongCard, you: true }] : [])];
  const took = cards.find((m) => m.took !== undefined)?.took;
  const onTable = cards.map((m) => {
    const node = cardEl(m.card);
    if (took !== undefined && m.you === took) node.classList.add("winner");
    if (m.card === wrongCard) node.classList.add("wrong-card");
    return node;
  });
  const goal = pt(`goal_${p.variant}`);
  return h("div", { class: "table-area puzzle-board" },
    h("div", { class: "game-head", id: "puzzle-head" },
      h("strong", { class: "game-name" }, t(p.variant)),
      h("span", { class: "goal", id: "puzzle-goal" }, goal),
      h("span", { class: "deal-no" }, pt("puzzleRating", { n: Math.round(p.rating) })),
      h("span", { class: "deal-no" }, pt("steps", { n: p.steps })),
      h("span", { class: "spacer" }), rulesButton(p.variant)),
    h("p", { class: "note puzzle-why", id: "puzzle-why" }, pt("why")),
    seatLine(pt("opponent"), pos.opponent_points, "opp"),
    h("div", { class: "hand", id: "opp-hand", role: "region", "aria-label": pt("opponent") }, theirs),
    h("div", { class: "center" },
      h("div", { class: "trick", id: "trick", role: "region", "aria-label": t("tableCards") }, onTable),
      !state.hold && pos.inplay.length ? h("span", { class: "puzzle-led", id: "puzzle-led" },
        t("trickLed", { name: pt("opponent") })) : null,
      state.last && !state.hold && !state.result ? h("div", { class: "puzzle-last row" },
        h("span", {}, t("lastTrick")), lineView(state.last, [], "puzzle-last")) : null),
    h("p", { class: `puzzle-status${state.result ? ` ${state.result.result}` : ""}`, id: "puzzle-status", role: "status" },
      state.status ? pt(state.status) : ""),
    h("div", { class: "hand", id: "my-hand", role: "region", "aria-label": t("yourHand") }, mine),
    seatLine(pt("you"), pos.points, "me"));
}

function seatLine(name, thirds, id) {
  return h("div", { class: "seat-line" }, h("span", { class: "seat-name" }, name),
    h("span", { class: "seat-points", id: `puzzle-points-${id}` }, `${pt("pointsSoFar")}: ${points(thirds)}`));
}

function resultView(p, r) {
  const sign = r.rating.change > 0 ? "+" : "";
  const wrong = r.result === "wrong";
  return h("section", { class: `puzzle-result ${r.result}`, id: "puzzle-result" },
    h("h2", { id: "puzzle-verdict" }, wrong ? pt("wrong") : pt("solved")),
    h("p", { class: "puzzle-change", id: "puzzle-change" },
      pt("change", { before: Math.round(r.rating.before), after: Math.round(r.rating.after),
        change: `${sign}${Math.round(r.rating.change)}` })),
    wrong ? h("h3", {}, pt("refutation")) : null,
    wrong ? lineView(r.refutation, r.position.inplay, "puzzle-refutation") : null,
    wrong && r.refutation_points ? h("p", { class: "puzzle-end", id: "puzzle-refutation-end" },
      pt("endsWith", { you: points(r.refutation_points[0]), opp: points(r.refutation_points[1]) })) : null,
    h("h3", {}, pt("solution")),
    lineView(r.solution, p.inplay, "puzzle-solution"),
    r.themes.length ? h("h3", {}, pt("themes")) : null,
    r.themes.length ? h("ul", { class: "puzzle-themes", id: "puzzle-themes" }, r.themes.map((key) => {
      const [name, line] = themeText(key);
      return h("li", { "data-theme": key }, h("strong", {}, name), line ? ` — ${line}` : "");
    })) : null,
    h("div", { class: "row" },
      h("button", { type: "button", id: "puzzle-next", onclick: () => load() }, pt("next")),
      p.replay ? h("a", { href: `#/replay/${p.game_id}`, id: "puzzle-game" }, pt("game")) : null));
}

/** Return a line of play as tricks: each card with who played it, the trick's taker marked. */
function lineView(moves, inplay, id) {
  const tricks = [];
  let trick = inplay.map((c) => ({ card: c, you: false }));
  for (const m of moves) {
    trick.push(m);
    if (m.took !== undefined) {
      tricks.push({ cards: trick, took: m.took });
      trick = [];
    }
  }
  if (trick.length) tricks.push({ cards: trick, took: null });
  return h("ol", { class: "puzzle-line", id }, tricks.map((tr) => h("li", { class: "puzzle-trick" },
    tr.cards.map((m) => {
      const node = cardEl(m.card, { small: true });
      if (tr.took !== null && m.you === tr.took) node.classList.add("winner");
      if (m === moves[0] && id === "puzzle-refutation") node.classList.add("wrong-card");
      return h("figure", { class: m.you ? "mine" : "theirs", "data-card": m.card },
        node, h("figcaption", {}, m.you ? pt("you") : pt("opponent")));
    }),
    tr.took === null ? null : h("span", { class: "took" }, tr.took ? pt("youTook") : pt("theyTook")))));
}
