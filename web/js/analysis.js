// Post-game analysis in the replay (#/replay/ID): every card marked by what it lost against the best one,
// the best card beside the card played, a graph of the expected final points (or the chance to win) over
// the moves, and both players' accuracy. Points are thirds shown as players count them (1⅓), the estimates too
// (rounded to the nearest third: one format on the page, the board's scores included). A card is "best" only
// when no card is valued higher; the cards are listed best first in both games (in Kifameno the fewest points).
// A four-player deal's analysis (`"game": "partnership"`, docs/protocol-four.md) is exact, all four hands open:
// its values are a partnership's final card points, its graph both partnerships' points, its players four.
import { call, currentUser, token } from "./api.js";
import { cardEl } from "./cards.js";
import { errorBox, fill, h } from "./dom.js";
import { teamChip, teamOf } from "./four.js";
import { cardName, percent, plural, points, t, tx } from "./i18n.js";

const POLL_MS = 3000;
const SYMBOL = { best: "★", good: "✓", inaccuracy: "?!", mistake: "?", blunder: "??" };
const NS = "http://www.w3.org/2000/svg";
const PAD = { left: 38, right: 8, top: 10, bottom: 18 };

// One game's analysis at a time; it survives re-renders (a language switch) like the replay itself.
let state = { key: null, data: null, error: null, timer: null, inflight: null, metric: "points", record: null, step: 0 };

// The styles live beside this module, so the shared stylesheet needs no edit.
if (!document.getElementById("analysis-css")) {
  document.head.append(h("link", { id: "analysis-css", rel: "stylesheet", href: "analysis.css" }));
}

/** Return the analysis panel of replay record ``r``; it loads (and polls while the analysis runs) by itself. */
export function analysisPanel(r) {
  const key = `${r.id}|${token() ?? ""}`;
  const panel = h("section", { class: "panel analysis", id: "analysis", "aria-live": "polite" },
    h("h2", {}, t("an_title")), h("div", { id: "analysis-body" }, h("p", {}, "…")));
  if (state.key !== key) {
    clearTimeout(state.timer);
    state = { ...state, key, data: null, error: null, timer: null, record: r };
  } else {
    state.record = r;
    queueMicrotask(render); // what we had, at once; then what the server has now (it may have been re-run)
  }
  if (!state.timer) load(key);
  return panel;
}

/** Return true when the analysis shown is a four-player deal's. */
function four() {
  return state.record?.game === "partnership";
}

/** Return how much better final points `a` are than `b` for their player in this game (Kifameno: fewer). */
function better(a, b) {
  return state.record?.variant === "kifameno" ? b - a : a - b;
}

/** Return move `m`'s cards best first: by value for the mover (fewer points in Kifameno), the engine's pick
 * first of equals, then by the chance to win. */
function ranked(m) {
  return [...(m.cards ?? [])].sort((a, b) => better(b.value, a.value) || (b.card === m.best) - (a.card === m.best)
    || b.win - a.win);
}

/** Return move `m`'s best card as shown: the first of its ranked cards (the engine's pick when none is listed). */
function bestOf(m) {
  return ranked(m)[0]?.card ?? m.best;
}

/** Return move `m`'s label as shown: "best" only when no card is valued higher (older analyses labelled a card
 * within the estimate's noise "best"; such a card is "good", as chess analysis boards say). */
function labelOf(m) {
  if (m.label !== "best") return m.label;
  const mine = (m.cards ?? []).find((c) => c.card === m.card)?.value ?? m.value;
  return (m.cards ?? []).some((c) => better(c.value, mine) > 0.005) ? "good" : "best";
}

/** Mark the analysed cards on the replay board at step ``k`` (k moves played) and move the graph's marker. */
export function analysisStep(board, k) {
  state.step = k;
  decorate(board, k);
  render();
}

/** Return move `m`'s best cards as shown: every one in a four-player deal (exact ties), else the first ranked. */
function bestCards(m) {
  return four() && m.best_cards?.length ? m.best_cards : [bestOf(m)];
}

function decorate(board, k) {
  if (!done() || !board) return;
  const byCard = new Map(state.data.moves.map((m) => [m.card, m]));
  // Cards already played: the trick on the table and the list of tricks (a deal plays each card once).
  for (const node of board.querySelectorAll("#replay-table .card[data-card], #replay-tricks .card[data-card]")) {
    const m = byCard.get(node.dataset.card);
    if (m && m.move < k && !node.closest(".trick-draws")) mark(node, m);
  }
  const next = state.data.moves[k];
  const line = board.querySelector("#replay-next-move");
  if (next && line && !line.querySelector(".an-tag")) {
    line.append(badgeText(next));
    if (showsBest(next)) line.append(bestPair(bestCards(next)));
  }
  const hand = board.querySelector(".card.next[data-card]");
  if (next && hand) mark(hand, next);
}

/** Return true when "Best:" is worth showing beside move `m`: another card, and a label that admits a loss
 * (a card labelled best or good may differ from the engine's pick only by a tie or a sliver). */
function showsBest(m) {
  return bestOf(m) !== m.card && !["best", "good"].includes(labelOf(m));
}

function bestPair(cards) {
  // "Best: [card]" wraps as one piece on a narrow screen.
  return h("span", { class: "an-best-pair" }, h("span", { class: "an-best-label" }, `${t("an_best")}:`),
    cards.map((card) => cardEl(card, { small: true })));
}

function done() {
  return state.data && state.data.status === "done" && Array.isArray(state.data.moves);
}

async function load(key) {
  if (state.inflight === key) return; // one request at a time (a re-render may ask again meanwhile)
  state.inflight = key;
  try {
    const data = await call("GET", `/api/games/${encodeURIComponent(state.record.id)}/analysis`);
    if (state.key !== key) return;
    state.data = data;
    state.error = null;
  } catch (e) {
    if (state.key !== key) return;
    state.error = e;
  } finally {
    if (state.inflight === key) state.inflight = null;
  }
  render();
  decorate(document.getElementById("replay-board"), state.step);
  if (state.data && ["queued", "running"].includes(state.data.status)) {
    // Poll only while this replay is on screen; coming back to it loads it again.
    state.timer = setTimeout(() => {
      state.timer = null;
      if (state.key === key && document.getElementById("analysis")) load(key);
    }, POLL_MS);
  }
}

async function request(force = false) {
  const key = state.key;
  try {
    await call("POST", `/api/games/${encodeURIComponent(state.record.id)}/analysis${force ? "?force=true" : ""}`);
  } catch (e) {
    state.error = e;
    render();
    return;
  }
  clearTimeout(state.timer);
  state.timer = null;
  state.inflight = null; // an answer from before the request must not be the last word
  load(key);
}

function render() {
  const body = document.getElementById("analysis-body");
  if (!body || !state.record) return;
  if (state.error) {
    fill(body, errorBox(state.error, "analysis-error", "game"));
    return;
  }
  const d = state.data;
  if (!d) return;
  if (d.status === "queued" || d.status === "running") {
    const text = d.status === "queued" ? t("an_queued", { n: d.position }) : t("an_running");
    fill(body, h("p", { id: "analysis-status", class: "an-wait" }, h("span", { class: "an-spinner", "aria-hidden": "true" }), text),
      d.bots === 0 ? h("p", { class: "hint an-nobot" }, t("an_no_bot")) : null);
    return;
  }
  if (d.status === "none" || d.status === "failed") {
    fill(body,
      h("p", { id: "analysis-status" }, d.status === "none" ? t("an_none") : t("an_failed", { error: d.error ?? "" })),
      d.bots === 0 ? h("p", { class: "hint" }, t("an_no_bot")) : null,
      h("button", { type: "button", id: "analysis-request", onclick: () => request() }, t("an_request")));
    return;
  }
  const admin = currentUser()?.role === "admin";
  fill(body,
    accuracyTable(d),
    graph(d),
    moveList(d),
    currentMove(d),
    h("p", { class: "note an-explain", id: "analysis-explain" },
      t(`an_explain_${four() ? "partnership" : state.record.variant === "kifameno" ? "kifameno" : "tressette"}`)),
    h("p", { class: "hint an-version" }, t("an_version", { v: d.version ?? "?" }),
      d.outdated || admin ? " " : null,
      d.outdated || admin ? h("button", { type: "button", class: "ghost an-rerun", id: "analysis-rerun", onclick: () => request(!d.outdated) },
        d.outdated ? t("an_rerun_newer") : t("an_rerun")) : null));
}

function viewerSeat() {
  const me = currentUser()?.username;
  const p = state.record.players;
  if (four()) return Math.max(0, p.indexOf(me));
  return p[1] === me && p[0] !== me ? 1 : 0;
}

/** Return the graph's side: a seat at two, a partnership at four. */
function sideOf(seat) {
  return four() ? teamOf(seat) : seat;
}

/** Return the side's name: a player, or a partnership "ana & bob". */
function sideName(side) {
  const p = state.record.players;
  return four() ? `${p[side]} & ${p[side + 2]}` : p[side];
}

/** Return thirds as players count points, estimates rounded to the nearest third: 19.3 -> "6⅓". */
function thirdsText(v) {
  return points(Math.round(Math.max(0, v)));
}

/** Return true when move `m`'s loss is shown: any loss at all, on a card not labelled best. */
function lossShown(m) {
  return labelOf(m) !== "best" && m.loss > 0.01;
}

/** Return a loss in thirds: "⅔", "1⅓"; a loss under half a third is "<⅓", never 0 beside a card that lost. */
function lossText(loss) {
  return loss > 0.005 && Math.round(loss) === 0 ? "<⅓" : thirdsText(loss);
}

function badgeText(m) {
  const label = labelOf(m);
  const lost = lossShown(m) ? ` −${lossText(m.loss)}` : "";
  const kind = m.kind ? ` · ${tx("an_kind", m.kind)}` : "";
  return h("span", { class: `an-tag an-${label}`, id: "analysis-next-tag" }, `${SYMBOL[label] ?? ""} ${tx("an_label", label)}${lost}${kind}`);
}

function mark(node, m) {
  if (node.querySelector(".an-badge")) return;
  const label = labelOf(m);
  node.classList.add("an-marked", `an-${label}`);
  const title = `${cardName(m.card)}: ${tx("an_label", label)}${lossShown(m) ? ` (−${lossText(m.loss)})` : ""}`;
  node.title = title;
  node.append(h("span", { class: `an-badge an-${label}`, "aria-label": title, role: "img" }, SYMBOL[label] ?? ""));
}

/** Return a seat's counts and average loss, all from the same moves (that seat's played cards). */
function seatFigures(d, seat) {
  const mine = d.moves.filter((m) => m.seat === seat);
  const count = (label) => mine.filter((m) => m.label === label).length;
  const avg = mine.length ? mine.reduce((sum, m) => sum + Math.max(0, m.loss), 0) / mine.length : 0;
  return { inaccuracies: count("inaccuracy"), mistakes: count("mistake"), blunders: count("blunder"), avg };
}

function accuracyTable(d) {
  const rows = [...(d.players ?? [])].sort((a, b) => a.seat - b.seat);
  // The number always shows; its word (by the language's plural rules) may be hidden on a narrow screen.
  const counted = (n, kind, key) => h("span", { class: `an-count an-${kind}`, title: plural(key, n) }, `${SYMBOL[kind]} ${n}`,
    h("span", { class: "an-small" }, plural(key, n).replace(String(n), "")));
  return h("div", { class: "an-players", id: "analysis-accuracy" }, rows.map((p) => {
    const f = seatFigures(d, p.seat);
    return h("div", { class: `an-player${four() ? ` team-${teamOf(p.seat)}` : ""}`, "data-seat": p.seat },
      h("div", { class: "an-name" }, four() ? teamChip(teamOf(p.seat)) : null, four() ? " " : null, state.record.players[p.seat]),
      h("div", { class: "an-accuracy" }, percent(Number(p.accuracy) / 100), h("span", { class: "an-small" }, ` ${t("an_accuracy")}`)),
      h("div", { class: "an-counts" },
        counted(f.inaccuracies, "inaccuracy", "an_n_inaccuracies"),
        counted(f.mistakes, "mistake", "an_n_mistakes"),
        counted(f.blunders, "blunder", "an_n_blunders")),
      h("div", { class: "an-small an-avg", "data-avg": f.avg.toFixed(4) }, `${t("an_avg_loss")}: ${lossText(f.avg)}`));
  }));
}

function svg(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

/** Return the viewer's series (a seat's, or at four a partnership's): the value before the first move, then
 * after each move. */
function series(d, side, metric) {
  const moves = d.moves;
  if (!moves.length) return [];
  const total = metric === "points" ? 35 : 1;
  const first = moves[0];
  const start = metric === "points" ? first.best_value : first.best_win;
  const out = [sideOf(first.seat) === side ? start : total - start];
  for (const m of moves) out.push(metric === "points" ? m.eval.points[side] : m.eval.win[side]);
  return out;
}

function graph(d) {
  const seat = sideOf(viewerSeat()); // at four, the viewer's partnership (the other's line is drawn too)
  const metric = four() ? "points" : state.metric; // exact values: a deal is won or not, no chance to show
  const values = series(d, seat, metric);
  const n = Math.max(1, d.moves.length);
  // A taller drawing on a phone, so the line and its labels stay readable at 390 px.
  const narrow = window.matchMedia("(max-width: 600px)").matches;
  const W = narrow ? 360 : 600;
  const H = narrow ? 200 : 170;
  const top = metric === "points" ? 35 : 1;
  const x = (i) => PAD.left + (i / n) * (W - PAD.left - PAD.right);
  const y = (v) => PAD.top + (1 - Math.max(0, Math.min(top, v)) / top) * (H - PAD.top - PAD.bottom);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "an-graph", id: "analysis-graph", role: "img",
    "aria-label": four() ? t("an_graph_dd")
      : metric === "points" ? t("an_graph_points", { name: sideName(seat) }) : t("an_graph_win", { name: sideName(seat) }) });
  svg("rect", { x: PAD.left, y: PAD.top, width: W - PAD.left - PAD.right, height: H - PAD.top - PAD.bottom, class: "an-plot" }, root);
  // The line that decides the game: 18 thirds (6 points) of 35, or an even chance.
  const half = metric === "points" ? 17.5 : 0.5;
  svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(half), y2: y(half), class: "an-mid" }, root);
  const ticks = metric === "points" ? [0, 9, 18, 27, 33] : [0, 0.5, 1]; // whole points: 0, 3, 6, 9, 11
  for (const v of ticks) {
    svg("text", { x: PAD.left - 4, y: y(v) + 4, class: "an-axis", "text-anchor": "end" }, root).textContent =
      metric === "points" ? points(v) : percent(v, 0);
  }
  const [cards, every] = four() ? [4, 2] : [2, 5]; // tricks marked below: of 10 at four, of 20 at two
  for (let trick = every; trick < n / cards; trick += every) {
    svg("text", { x: x(trick * cards), y: H - 4, class: "an-axis", "text-anchor": "middle" }, root).textContent = String(trick);
  }
  if (values.length) {
    const pts = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    svg("path", { d: `M${pts[0]} L${pts.slice(1).join(" L")} L${x(values.length - 1)},${y(0)} L${x(0)},${y(0)} Z`, class: "an-area" }, root);
    if (four()) { // the other partnership's points: the rest of the 35
      svg("polyline", { points: values.map((v, i) => `${x(i).toFixed(1)},${y(35 - v).toFixed(1)}`).join(" "),
        class: `an-line an-team team-${1 - seat}` }, root);
    }
    svg("polyline", { points: pts.join(" "), class: `an-line${four() ? ` an-team team-${seat}` : ""}` }, root);
  }
  d.moves.forEach((m, i) => {
    if (!["inaccuracy", "mistake", "blunder"].includes(m.label)) return;
    const dot = svg("circle", { cx: x(i + 1), cy: y(values[i + 1]), r: m.label === "inaccuracy" ? 3.5 : 5, class: `an-dot an-${m.label}` }, root);
    svg("title", {}, dot).textContent = `${i + 1}. ${state.record.players[m.seat]}: ${cardName(m.card)} · ${tx("an_label", m.label)} −${lossText(m.loss)}`;
  });
  const k = Math.min(state.step, d.moves.length);
  svg("line", { x1: x(k), x2: x(k), y1: PAD.top, y2: H - PAD.bottom, class: "an-now", id: "analysis-now" }, root);
  if (values.length) svg("circle", { cx: x(k), cy: y(values[k]), r: 4.5, class: "an-now-dot" }, root);
  root.addEventListener("click", (e) => {
    const box = root.getBoundingClientRect();
    const i = Math.round(((e.clientX - box.left) / box.width * W - PAD.left) / (W - PAD.left - PAD.right) * n);
    jump(Math.max(0, Math.min(n, i)));
  });
  const pick = (which, label) => h("button", { type: "button", class: `ghost an-metric${metric === which ? " on" : ""}`,
    "aria-pressed": metric === which ? "true" : "false", onclick: () => { state.metric = which; render(); } }, label);
  const value = values.length ? values[k] : null;
  const now = value === null ? "" : metric === "points" ? thirdsText(value) : percent(value, 0);
  if (four()) return graphBox4(d, root, value);
  return h("div", { class: "an-graph-box" },
    h("div", { class: "row an-graph-head" },
      h("span", { class: "an-graph-title" }, metric === "points"
        ? t("an_graph_points", { name: sideName(seat) }) : t("an_graph_win", { name: sideName(seat) }),
      h("strong", { id: "analysis-now-value" }, ` ${now}`)),
      h("span", { class: "row an-metrics" }, pick("points", t("an_metric_points")), pick("win", t("an_metric_win")))),
    root);
}

/** Return the four-player graph's box: both partnerships' double-dummy points now, in their colours. */
function graphBox4(d, root, value) {
  const side = sideOf(viewerSeat());
  const now = (team) => (value === null ? "" : thirdsText(team === side ? value : 35 - value));
  const legend = (team) => h("span", { class: `an-legend team-${team}`, id: `analysis-now-${team}` }, teamChip(team),
    ` ${sideName(team)}: `, h("strong", {}, now(team)));
  return h("div", { class: "an-graph-box" },
    h("div", { class: "row an-graph-head" }, h("span", { class: "an-graph-title" }, t("an_graph_dd")), legend(0), legend(1)),
    root);
}

function jump(k) {
  // The replay's own slider moves the board (its input handler does the rest).
  const slider = document.getElementById("replay-slider");
  if (!slider) return;
  slider.value = k;
  slider.dispatchEvent(new Event("input"));
}

function moveList(d) {
  const k = state.step;
  return h("ol", { class: "an-moves", id: "analysis-moves", "aria-label": t("an_moves") }, d.moves.map((m, i) => h("li", {},
    h("button", { type: "button", class: `an-move an-${labelOf(m)}${i === k ? " now" : ""} seat-${m.seat}`, "data-move": i,
      title: `${i + 1}. ${state.record.players[m.seat]}: ${cardName(m.card)} · ${tx("an_label", labelOf(m))}${lossShown(m) ? ` −${lossText(m.loss)}` : ""}`,
      onclick: () => jump(i) }, `${i + 1}`, h("span", { class: "an-sym" }, SYMBOL[labelOf(m)] ?? "")))));
}

function currentMove(d) {
  const k = state.step;
  const m = d.moves[k];
  if (!m) return h("p", { class: "an-current", id: "analysis-current" }, t("an_pick"));
  const name = state.record.players[m.seat];
  const lost = lossShown(m) ? ` · ${t("an_lost", { points: lossText(m.loss) })}` : "";
  const label = labelOf(m);
  const cards = ranked(m); // best first in both games
  return h("div", { class: "an-current", id: "analysis-current" },
    h("p", { class: "an-line-played" }, `${k + 1}. ${name} ${t("plays")}`, cardEl(m.card, { small: true }),
      h("span", { class: `an-tag an-${label}` }, `${SYMBOL[label]} ${tx("an_label", label)}${lost}`),
      showsBest(m) ? bestPair(bestCards(m)) : null),
    m.kind ? h("p", { class: "an-kind" }, tx("an_kind", m.kind)) : null,
    cards.length > 1 ? h("p", { class: "an-cards", id: "analysis-cards" }, h("span", { class: "an-small" }, `${t(four() ? "an_cards_partnership" : "an_cards")}: `),
      cards.map((c) => h("span", { class: `an-card-value${c.card === m.card ? " played" : ""}${bestCards(m).includes(c.card) || c.card === cards[0].card ? " best" : ""}` },
        `${cardName(c.card)} ${thirdsText(c.value)}`))) : null);
}
