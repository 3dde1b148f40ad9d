// The single-page client: sign in, lobby, table, statistics, replays, admin. Routes: #/login, #/lobby,
// #/table/ID, #/join/ID/CODE, #/leaderboard, #/player/NAME, #/replay/ID, #/admin.
import { adminView } from "./admin.js";
import { call, currentUser, saveSession, saveUser, signOut, token } from "./api.js";
import { cardEl } from "./cards.js";
import { h } from "./dom.js";
import { currentLang, setLang, t } from "./i18n.js";
import { replayView } from "./replay.js";
import { drawRevealEl, hideDraws, revealDraws } from "./reveal.js";
import { leaderboardView, profileView } from "./stats.js";
import { Socket } from "./ws.js";

const app = document.getElementById("app");
const state = {
  lobby: [], tables: {}, chat: {}, socket: null, showLast: false, error: null, clock: null,
  form: { variant: "tressette", opponent: "anyone", level: "normal" },
};

function toast(text, ms = 2500) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, ms);
}

function connect() {
  if (state.socket || !token()) return;
  state.socket = new Socket(token, {
    welcome: () => {},
    lobby: (m) => { state.lobby = m.tables; render(); },
    table: (m) => onTable(m),
    chat: (m) => { (state.chat[m.table_id] ??= []).push(m); render(); },
    error: (m) => { toast(m.message, 4000); state.error = m; },
    pong: () => {},
    unauthorized: () => { signOut(); state.socket = null; location.hash = "#/login"; },
  }, (on) => {
    const c = document.getElementById("conn");
    c.dataset.state = on ? "on" : "off";
    c.textContent = on ? "" : t("reconnecting");
  });
  state.socket.open();
}

function onTable(m) {
  const table = m.table;
  const prev = state.tables[table.id];
  state.tables[table.id] = table;
  const ev = m.event || {};
  // The cards drawn after a trick are shown as cards for a moment; the next card played ends the reveal.
  if (ev.kind === "trick") revealDraws(table.id, table.view.history.length, ev.trick.draws);
  else if (["play", "start", "end"].includes(ev.kind)) hideDraws(table.id);
  if (!prev && (location.hash === "#/lobby" || location.hash.startsWith("#/join"))) location.hash = `#/table/${table.id}`;
  render();
}

function send(msg) {
  state.socket.send(msg);
}

// ----- views ---------------------------------------------------------------------------

function loginView() {
  const user = h("input", { name: "username", autocomplete: "username", placeholder: t("username") });
  const pass = h("input", { name: "password", type: "password", autocomplete: "current-password", placeholder: t("password") });
  const err = h("p", { class: "error", hidden: true });
  const go = (path) => async () => {
    try {
      saveSession(await call("POST", path, path.endsWith("guest") ? null : { username: user.value, password: pass.value }));
      connect();
      location.hash = "#/lobby";
    } catch (e) {
      err.hidden = false;
      err.textContent = e.message;
    }
  };
  return h("section", { class: "panel stack" },
    h("h1", {}, "Tressette · Kifameno"), user, pass,
    h("div", { class: "row" },
      h("button", { onclick: go("/api/auth/login"), id: "login" }, t("signin")),
      h("button", { class: "ghost", onclick: go("/api/auth/register"), id: "register" }, t("register"))),
    h("button", { onclick: go("/api/auth/guest"), id: "guest" }, t("guest")), err);
}

function lobbyView() {
  // Every lobby update re-renders this view, so the choices live in state: a table appearing must not reset them.
  const form = state.form;
  const choice = (id, values) => h("select", { id, onchange: (e) => { form[id] = e.target.value; } },
    values.map((v) => h("option", { value: v, selected: v === form[id] }, t(v))));
  const variant = choice("variant", ["tressette", "kifameno"]);
  const opponent = choice("opponent", ["anyone", "bot", "invite"]);
  const level = choice("level", ["easy", "normal", "strong"]);
  const create = () => send({ type: "create_table", variant: variant.value, opponent: opponent.value,
    bot_level: opponent.value === "bot" ? level.value : null });
  const rows = state.lobby.map((tb) => h("tr", {},
    h("td", {}, t(tb.variant)),
    h("td", {}, tb.players.map((p) => p ?? "—").join(" · ") + (tb.bot_level ? ` (${t(tb.bot_level)})` : "")),
    h("td", {}, t(tb.status)),
    h("td", {}, tb.status === "waiting" && !tb.players.includes(currentUser()?.username)
      ? h("button", { onclick: () => send({ type: "join_table", table_id: tb.id }), "data-join": tb.id }, t("join")) : null,
    " ", h("button", { class: "ghost", onclick: () => { send({ type: "watch_table", table_id: tb.id }); location.hash = `#/table/${tb.id}`; } }, t("watch")))));
  return h("div", {},
    h("section", { class: "panel" }, h("h2", {}, t("newTable")),
      h("div", { class: "row" }, h("label", {}, t("variant"), " ", variant), h("label", {}, t("opponent"), " ", opponent),
        h("label", {}, t("level"), " ", level), h("button", { id: "create", onclick: create }, t("create")))),
    h("section", { class: "panel" }, h("h2", {}, t("lobby")),
      rows.length ? h("table", { class: "list" }, h("tbody", {}, rows)) : h("p", {}, t("noTables"))));
}

function seatName(table, seat) {
  const p = table.players[seat];
  return p ? p.username : "—";
}

function tableView(id) {
  const table = state.tables[id];
  if (!table) return h("p", {}, "…");
  const v = table.view;
  const me = table.you ?? 0;
  const opp = 1 - me;
  const parts = [];
  if (table.notice) parts.push(h("p", { class: "notice" }, table.notice));
  if (table.status === "waiting" || !v) {
    parts.push(h("section", { class: "panel" }, h("p", {}, t("waitingOpponent")),
      table.invite ? h("p", {}, t("inviteLink"), " ", h("code", { id: "invite-link" }, `${location.origin}/#/join/${table.id}/${table.invite}`)) : null));
    return h("div", { class: "table-area" }, parts, leaveButton(table));
  }
  const legal = new Set(v.legal);
  const myTurn = table.status === "playing" && v.to_move === table.you;
  const play = (card) => send({ type: "play", table_id: table.id, card });
  const oppKnown = new Set(v.known[opp]);
  const oppCards = [...v.known[opp].map((c) => cardEl(c, { small: true })),
    ...Array.from({ length: Math.max(0, v.hand_counts[opp] - oppKnown.size) }, () => cardEl(null, { small: true }))];
  const myCards = table.you === null
    ? [...v.known[me].map((c) => cardEl(c, { small: true })), ...Array.from({ length: v.hand_counts[me] - v.known[me].length }, () => cardEl(null, { small: true }))]
    : v.hand.map((c) => cardEl(c, { playable: myTurn && legal.has(c), dim: myTurn && !legal.has(c), onPlay: play }));
  const last = v.history[v.history.length - 1];
  const turnText = turnLine(table);
  parts.push(
    h("div", { class: "scores" },
      h("span", { id: "score-me" }, `${table.you === null ? seatName(table, me) : t("you")}: ${v.points[me]} ${t("points")} (${Math.floor(v.points[me] / 3)})`),
      h("span", { class: `turn${myTurn ? " mine" : ""}`, id: "turn" }, turnText),
      h("span", { id: "score-opp" }, `${seatName(table, opp)}: ${v.points[opp]} ${t("points")} (${Math.floor(v.points[opp] / 3)})`)),
    h("div", { class: "hand", id: "opp-hand" }, oppCards),
    h("div", { class: "center" },
      h("div", { class: "stock" }, v.stock_count ? cardEl(null, { small: true }) : null, h("div", { id: "stock" }, `${t("stock")}: ${v.stock_count}`)),
      h("div", { class: "trick", id: "trick" }, v.table.map((c) => cardEl(c))),
      drawRevealEl(table),
      last ? h("button", { class: "ghost", id: "last-trick", onclick: () => { state.showLast = !state.showLast; render(); } }, state.showLast ? t("hideLastTrick") : t("lastTrick")) : null),
    state.showLast && last ? h("div", { class: "trick", id: "last" }, last.cards.map((c) => cardEl(c, { small: true }))) : null,
    h("div", { class: "hand", id: "my-hand" }, myCards));
  if (table.you === null) parts.unshift(h("p", {}, t("spectator")));
  if (table.result) parts.push(summaryView(table));
  parts.push(chatView(table), leaveButton(table));
  return h("div", { class: "table-area" }, parts);
}

function turnLine(table) {
  const v = table.view;
  if (table.status !== "playing" || !v) return "";
  const mine = v.to_move === table.you;
  const left = table.turn_deadline ? Math.max(0, Math.round((table.turn_deadline - Date.now()) / 1000)) : null;
  return (mine ? t("yourTurn") : t("theirTurn")) + (left !== null ? ` · ${left}${t("seconds")}` : "");
}

function summaryView(table) {
  const r = table.result;
  const me = table.you ?? 0;
  const won = r.winner === me;
  const why = r.reason === "timeout" ? t("reasonTimeout") : r.reason === "left" ? t("reasonLeft") : "";
  return h("section", { class: "summary", id: "summary" },
    h("h2", {}, table.you === null ? `${seatName(table, r.winner)} ✓` : won ? t("youWin") : t("youLose")),
    h("p", {}, `${r.points[me]} : ${r.points[1 - me]}` + (why ? ` · ${seatName(table, 1 - r.winner)} ${why}` : "")),
    h("div", { class: "piles" },
      h("div", {}, h("strong", {}, t("yourPile")), h("div", { class: "hand" }, r.piles[me].map((c) => cardEl(c, { small: true })))),
      h("div", {}, h("strong", {}, t("theirPile")), h("div", { class: "hand" }, r.piles[1 - me].map((c) => cardEl(c, { small: true }))))),
    table.you !== null ? h("button", { id: "rematch", disabled: table.rematch[me], onclick: () => send({ type: "rematch", table_id: table.id }) },
      table.rematch[me] ? t("rematchAsked") : t("rematch")) : null);
}

function chatView(table) {
  // The draft survives re-renders (each table message redraws the page).
  const input = h("input", { maxlength: 200, id: "chat-input", placeholder: t("chat"),
    oninput: (e) => { state.draft = e.target.value; } });
  input.value = state.draft ?? "";
  const submit = (e) => {
    e.preventDefault();
    if (input.value.trim()) send({ type: "chat", table_id: table.id, text: input.value.trim() });
    input.value = "";
    state.draft = "";
  };
  return h("section", { class: "panel" },
    h("div", { class: "chat", id: "chat" }, (state.chat[table.id] ?? []).map((m) => h("p", {}, h("strong", {}, m.from), ": ", m.text))),
    h("form", { class: "row", onsubmit: submit }, input, h("button", { type: "submit" }, t("send"))));
}

function leaveButton(table) {
  return h("div", { class: "row" }, h("button", { class: "ghost", id: "leave", onclick: () => {
    send({ type: "leave_table", table_id: table.id });
    delete state.tables[table.id];
    location.hash = "#/lobby";
  } }, t("leave")));
}

// ----- routing and rendering ------------------------------------------------------------

const decode = (part) => { try { return decodeURIComponent(part); } catch { return part; } }; // a mistyped %xx stays as typed

// Pages that load their own data; a socket message redraws them only when the route or language changed.
const PAGES = {
  leaderboard: () => leaderboardView(),
  player: (id) => (id ? profileView(decode(id)) : null),
  replay: (id) => (id ? replayView(id) : null),
  admin: () => (token() ? adminView() : null),
};

function renderNav(route, id, user) {
  const signedIn = Boolean(user && token());
  const mine = signedIn ? `#/player/${encodeURIComponent(user.username)}` : null;
  const links = [
    ["lobby", "#/lobby", t("lobby"), route === "lobby" || route === "table"],
    ["leaderboard", "#/leaderboard", t("leaderboard"), route === "leaderboard"],
    signedIn ? ["profile", mine, t("myProfile"), route === "player" && id && decode(id) === user.username] : null,
    signedIn && user.role === "admin" ? ["admin", "#/admin", t("admin"), route === "admin"] : null,
  ].filter(Boolean);
  document.getElementById("nav").replaceChildren(...links.map(([name, href, text, current]) =>
    h("a", { id: `nav-${name}`, href, "aria-current": current ? "page" : null }, text)));
}

function render() {
  const user = currentUser();
  document.getElementById("whoami").textContent = user ? user.username : "";
  document.getElementById("lang").textContent = currentLang() === "en" ? "SL" : "EN";
  const [, route, id, code] = location.hash.split("/");
  renderNav(route, id, user);
  if (PAGES[route]) {
    const key = `${location.hash}|${currentLang()}|${token() ?? ""}`;
    if (state.page === key) return;
    const page = PAGES[route](id);
    if (page) {
      state.page = key;
      app.replaceChildren(page);
      return;
    }
  }
  state.page = null;
  if (!token()) {
    app.replaceChildren(loginView());
    return;
  }
  if (route === "join" && id) {
    send({ type: "join_table", table_id: id, invite: code ?? null });
    location.hash = `#/table/${id}`;
    return;
  }
  app.replaceChildren(route === "table" && id ? tableView(id) : lobbyView());
}

document.getElementById("lang").addEventListener("click", () => { setLang(currentLang() === "en" ? "sl" : "en"); render(); });
document.addEventListener("keydown", (e) => {
  // Keys 1-9 and 0 play the n-th playable card of your hand.
  if (e.target.tagName === "INPUT") return;
  const n = e.key === "0" ? 10 : Number(e.key);
  if (!n) return;
  const cards = [...document.querySelectorAll("#my-hand .card.legal")];
  cards[n - 1]?.click();
});
window.addEventListener("hashchange", () => { state.showLast = false; render(); });
setInterval(() => {
  // Only the clock ticks: a full re-render would reset what the player is typing.
  const id = location.hash.split("/")[2];
  const turn = document.getElementById("turn");
  if (turn && state.tables[id]) turn.textContent = turnLine(state.tables[id]);
}, 1000);
setLang(currentLang());
if (token()) {
  connect();
  // The role may have changed since sign-in (an admin link shows only for admins).
  call("GET", "/api/me").then((user) => { saveUser(user); render(); })
    .catch((e) => { if (e.status === 401) { signOut(); render(); } });
}
if (!location.hash) location.hash = token() ? "#/lobby" : "#/login";
render();
