// The banner on every page but the table's own: a table of yours that needs you — your turn, the opponent ready
// for the next deal of your match, a match going on between deals — with the seconds left and a way back. Nobody
// loses a match by reading the replay or the puzzles: the socket stays open on every page, so the tables' news
// arrive there too (live.tables), and this says so.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { announce, live } from "./live.js";

const shown = new Map(); // table id -> the text last drawn (an urgent new one is announced once)

/** Return what ``table`` asks of its player now ({text, deadline, urgent}), or null when nothing. */
export function needOf(table) {
  if (table.you === null || table.you === undefined || table.status === "closed") return null;
  const me = table.you;
  if (table.game === "partnership") return needOf4(table, me);
  const opponent = table.players[1 - me];
  const name = opponent?.username ?? "—";
  if (table.status === "playing" && table.view) {
    if (table.view.to_move === me) return { text: t("need_turn", { name }), deadline: table.turn_deadline, urgent: true };
    return { text: t("need_playing", { name }), deadline: null, urgent: false };
  }
  const m = table.match;
  if (table.status === "finished" && m && !m.end && opponent) {
    if (table.rematch[1 - me] && !table.rematch[me]) return { text: t("need_ready", { name }), deadline: m.next_deal_at, urgent: true };
    if (!table.rematch[me]) return { text: t("need_next", { name }), deadline: null, urgent: false };
    return { text: t("need_wait", { name }), deadline: m.next_deal_at, urgent: false };
  }
  return null;
}

/** The same for a table for four: named by the two opponents ("bot-a & bot-b"). */
function needOf4(table, me) {
  const name = [1, 3].map((k) => table.players[(me + k) % 4]?.username ?? "—").join(" & ");
  if (table.status === "playing" && table.view) {
    if (table.view.to_move === me) return { text: t("need_turn", { name }), deadline: table.turn_deadline, urgent: true };
    return { text: t("need_playing", { name }), deadline: null, urgent: false };
  }
  const m = table.match;
  if (table.status === "finished" && m && !m.end && !table.rematch?.[me]) return { text: t("need_next", { name }), deadline: m.next_deal_at, urgent: false };
  return null;
}

function secondsText(deadline) {
  return deadline ? t("need_seconds", { n: Math.max(0, Math.round((deadline - Date.now()) / 1000)) }) : "";
}

/** Draw the banner for the page at ``route``/``id`` (the table's own page shows none for itself). */
export function renderNeeds(route, id) {
  const box = document.getElementById("needs");
  if (!box) return;
  const items = [];
  const seen = new Set();
  for (const table of Object.values(live.tables)) {
    if (route === "table" && id === table.id) continue;
    const need = needOf(table);
    if (!need) continue;
    seen.add(table.id);
    if (need.urgent && shown.get(table.id) !== need.text) announce(need.text);
    shown.set(table.id, need.text);
    items.push(h("p", { class: `need${need.urgent ? " urgent" : ""}`, "data-table": table.id, "data-deadline": need.deadline ?? "" },
      h("span", { class: "need-text" }, need.text),
      h("span", { class: "need-seconds" }, need.deadline ? ` · ${secondsText(need.deadline)}` : ""),
      " ", h("a", { class: "need-back", href: `#/table/${table.id}` }, t("need_back"))));
  }
  for (const key of [...shown.keys()]) if (!seen.has(key)) shown.delete(key);
  box.replaceChildren(...items);
  box.hidden = items.length === 0;
  box.setAttribute("aria-label", t("needsLabel"));
}

/** Update the banner's seconds without redrawing it (a press on its link must not be lost). */
export function tickNeeds() {
  for (const node of document.querySelectorAll("#needs .need")) {
    const deadline = Number(node.dataset.deadline);
    const span = node.querySelector(".need-seconds");
    if (span && deadline) span.textContent = ` · ${secondsText(deadline)}`;
  }
}
