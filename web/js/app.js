// The single-page client: sign in, lobby, table, statistics, replays, admin. Routes: #/login, #/lobby,
// #/table/ID, #/join/ID/CODE, #/leaderboard, #/player/NAME, #/replay/ID, #/match/ID, #/puzzles, #/admin.
import { adminView } from "./admin.js";
import { call, currentUser, saveUser, signOut, token } from "./api.js";
import { h } from "./dom.js";
import { currentLang, LANGS, setLang, t } from "./i18n.js";
import { announce, errorText, live, onRedraw, rerender, send, toast } from "./live.js";
import { lobbyView, loginView, onUpgrade } from "./lobby.js";
import { seek4 } from "./lobby4.js";
import { matchView } from "./match.js";
import { renderNeeds, tickNeeds } from "./needs.js";
import { puzzleView } from "./puzzles.js";
import { replayView } from "./replay.js";
import { onSeekEnded, onSeeking, staleRatings, tickSeek } from "./seek.js";
import { leaderboardView, profileView } from "./stats.js";
import { forgetSent, forgetTable, receiveTable, skipHold, tableView, tickTable } from "./table.js";
import { forgetSent4, forgetTable4, receiveTable4, skipHold4, table4View, tickTable4 } from "./table4.js";
import { Socket } from "./ws.js";

const app = document.getElementById("app");
let pageKey = null; // the page drawn by PAGES (they load their own data: redrawn only when this changes)

function connect() {
  if (live.socket || !token()) return;
  live.socket = new Socket(token, {
    welcome: (m) => {
      live.seats = m.seats ?? [];
      forgetSent(); // a card sent on the old socket is answered by the table the server sends again
      forgetSent4();
      // A seek ends with its socket: after a reconnect the page seeks again (at the back of the queue).
      if (live.seek) {
        send(live.seek.game === "partnership" ? seek4(live.seek.target, live.seek.partner)
          : { type: "seek", variant: live.seek.variant, target: live.seek.target });
      }
      // A page opened at a table takes its seat there (another tab may hold it); reconnects get it back by themselves.
      const id = routeTable();
      if (id && !live.tables[id] && !live.moved.has(id)) openTable(id);
      rerender();
    },
    lobby: (m) => {
      live.lobby = m.tables;
      live.online = m.online ?? 0;
      live.botLevels = m.bot_levels ?? live.botLevels;
      live.botRatings = m.bot_ratings ?? live.botRatings;
      live.partnershipLevels = m.partnership_levels ?? live.partnershipLevels;
      live.partnershipRatings = m.partnership_ratings ?? live.partnershipRatings;
      rerender();
    },
    // A table for four has its own page (table4.js); the two-player table's is unchanged.
    table: (m) => (m.table?.game === "partnership" ? receiveTable4(m, shown) : receiveTable(m, shown)),
    chat: (m) => { (live.chat[m.table_id] ??= []).push(m); rerender(); },
    error: (m) => {
      toast(errorText(m), 4000);
      forgetSent(); // a refused card: the hand takes a card again
      forgetSent4();
      rerender();
    },
    seat_moved: (m) => { live.moved.add(m.table_id); announce(t("seatMoved")); rerender(); },
    left: (m) => { live.seats = live.seats.filter((s) => s.table_id !== m.table_id); rerender(); },
    seeking: onSeeking,
    seek_ended: onSeekEnded,
    pong: () => {},
    unauthorized: () => { signOut(); live.socket = null; location.hash = "#/login"; },
  }, (on) => {
    const c = document.getElementById("conn");
    c.dataset.state = on ? "on" : "off";
    c.textContent = on ? "" : t("reconnecting");
    c.title = c.textContent;
  });
  live.socket.open();
}

/** After a table snapshot is shown: go to a table the player just sat at; keep the list of our seats. */
function shown(m, prev) {
  const table = m.table;
  if (table.you !== null && !live.seats.some((s) => s.table_id === table.id)) {
    live.seats.push({ table_id: table.id, seat: table.you, status: table.status });
  }
  const [, route] = location.hash.split("/");
  if (!prev && table.you !== null && (route === "lobby" || route === "join")) location.hash = `#/table/${table.id}`;
}

/** Open a table's page: take your seat there, or watch it (a private one with the invite of its link). */
function openTable(id) {
  send({ type: "open_table", table_id: id, invite: live.invites[id] ?? null });
}

function routeTable() {
  const [, route, id] = location.hash.split("/");
  return route === "table" && id ? id : null;
}

async function signOutNow() {
  try {
    await call("POST", "/api/auth/logout");
  } catch {
    // Signed out here whatever the server said: a token it no longer knows is as good as revoked.
  }
  live.socket?.close();
  live.socket = null;
  const conn = document.getElementById("conn");
  conn.dataset.state = "on";
  conn.textContent = "";
  for (const id of Object.keys(live.tables)) {
    forgetTable4(id);
    forgetTable(id);
  }
  live.seats = [];
  live.seek = null;
  live.ratings = null;
  staleRatings(); // signing in again on this page fetches the account's ratings anew
  signOut();
  toast(t("signedOut"));
  location.hash = "#/login";
  render();
}

/** Keep the page's language on the signed-in account, so signing in elsewhere brings it back. */
function keepLang() {
  call("PUT", "/api/me/lang", { lang: currentLang() }).then(saveUser).catch(() => {
    // Not kept this time (offline, signed out meanwhile): this browser still remembers the choice.
  });
}

/** After a sign-in (or, with ``load``, a page opened signed in): take the account's language, or give it this
 * page's. On load a language this browser remembers wins: it was picked here, perhaps after the account's. */
function adoptLang(user, load = false) {
  if (user?.lang && user.lang !== currentLang() && !(load && localStorage.getItem("treset.lang"))) {
    setLang(user.lang);
    render();
  } else if (user && user.lang !== currentLang()) {
    keepLang();
  }
}

/** A sign-in from the form: the socket, then the account's language. */
function signedIn() {
  connect();
  adoptLang(currentUser());
}

onUpgrade(() => { connect(); render(); });

// ----- routing and rendering ------------------------------------------------------------

const decode = (part) => { try { return decodeURIComponent(part); } catch { return part; } }; // a mistyped %xx stays as typed

// Pages that load their own data; a socket message redraws them only when the route or language changed.
const PAGES = {
  leaderboard: () => leaderboardView(),
  player: (id) => (id ? profileView(decode(id)) : null),
  replay: (id) => (id ? replayView(id) : null),
  match: (id) => (id ? matchView(id) : null),
  puzzles: () => (token() ? puzzleView() : null),
  admin: () => (token() ? adminView() : null),
};

function renderNav(route, id, user) {
  const signedIn = Boolean(user && token());
  const mine = signedIn ? `#/player/${encodeURIComponent(user.username)}` : null;
  const links = [
    ["lobby", "#/lobby", t("lobby"), route === "lobby" || route === "table"],
    ["leaderboard", "#/leaderboard", t("leaderboard"), route === "leaderboard"],
    signedIn ? ["puzzles", "#/puzzles", t("puzzles"), route === "puzzles"] : null,
    signedIn ? ["profile", mine, t("myProfile"), route === "player" && id && decode(id) === user.username] : null,
    signedIn && user.role === "admin" ? ["admin", "#/admin", t("admin"), route === "admin"] : null,
  ].filter(Boolean);
  document.getElementById("nav").replaceChildren(...links.map(([name, href, text, current]) =>
    h("a", { id: `nav-${name}`, href, "aria-current": current ? "page" : null }, text)));
}

function renderWho(user) {
  const signedIn = Boolean(user && token());
  document.getElementById("whoami").replaceChildren(...(signedIn ? [h("span", { id: "username" }, user.username),
    h("button", { class: "ghost small", id: "signout", type: "button", onclick: signOutNow }, t("signOut"))] : []));
}

function render() {
  const user = currentUser();
  renderWho(user);
  document.getElementById("conn").hidden = !token(); // signed out: no socket, so no connection to show
  const pick = document.getElementById("lang");
  pick.value = currentLang();
  pick.title = LANGS[currentLang()];
  document.title = `treset · ${t("tressette")} & ${t("kifameno")}`;
  const [, route, id, code] = location.hash.split("/");
  renderNav(route, id, user);
  renderNeeds(token() ? route : null, id);
  if (PAGES[route]) {
    const key = `${location.hash}|${currentLang()}|${token() ?? ""}`;
    if (pageKey === key) return;
    const page = PAGES[route](id);
    if (page) {
      pageKey = key;
      app.replaceChildren(page);
      return;
    }
  }
  if (!token()) {
    // Drawn once: a later render (the hash set on signing out, a socket closing) must not clear what is typed.
    const key = `login|${currentLang()}`;
    if (pageKey !== key) app.replaceChildren(loginView(signedIn));
    pageKey = key;
    return;
  }
  pageKey = null;
  if (route === "join" && id) {
    if (code) live.invites[id] = code;
    send({ type: "join_table", table_id: id, invite: code ?? null });
    location.hash = `#/table/${id}`;
    return;
  }
  const four = route === "table" && id && live.tables[id]?.game === "partnership";
  redraw(route === "table" && id ? (four ? table4View(id) : tableView(id)) : lobbyView());
}

/** Replace the page with `view`, keeping the focus (and the caret) in the field being typed in: live updates
 * redraw the lobby and the table often, and must not take the chat line or a form from under the player. */
function redraw(view) {
  const active = document.activeElement;
  const focused = active && active.id && app.contains(active) ? active.id : null;
  const caret = focused && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
  app.replaceChildren(view);
  const again = focused ? document.getElementById(focused) : null;
  if (!again) return;
  again.focus({ preventScroll: true });
  if (caret && typeof again.setSelectionRange === "function") again.setSelectionRange(...caret);
}

onRedraw(render);
document.getElementById("lang").addEventListener("change", (e) => {
  setLang(e.target.value);
  render();
  if (token()) keepLang();
});
// A click or a key during the pause after a trick only ends the pause.
const skipAny = () => [skipHold(), skipHold4()].some(Boolean); // the two-player and the four-player tables' pauses
document.addEventListener("pointerdown", (e) => { if (skipAny()) e.preventDefault(); }, true);
document.addEventListener("keydown", (e) => {
  if (["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
  if (skipAny()) {
    e.preventDefault();
    return;
  }
  // Keys 1-9 and 0 play the n-th playable card of your hand.
  const n = e.key === "0" ? 10 : Number(e.key);
  if (!n) return;
  const cards = [...document.querySelectorAll("#my-hand .card.legal")];
  cards[n - 1]?.click();
});
window.addEventListener("hashchange", () => {
  live.showLast = false;
  live.confirmLeave = null;
  const id = routeTable();
  // Back in the lobby after a game: "★ your level" follows the rating the game moved.
  if (location.hash.startsWith("#/lobby")) staleRatings();
  // Opening a table's page takes your seat there, or watches the table: the server answers with the table.
  if (id && token() && !live.moved.has(id)) openTable(id);
  render();
});
setInterval(() => {
  // Only the clock and the presence countdowns tick: a full re-render would reset what the player is typing.
  const id = routeTable();
  if (id && live.tables[id]?.game === "partnership") tickTable4(id);
  else if (id) tickTable(id);
  else tickSeek();
  tickNeeds();
}, 1000);
setLang(currentLang(), false); // <html lang>; a first visit follows the browser's languages until a pick
if (token()) {
  connect();
  // The role may have changed since sign-in (an admin link shows only for admins).
  call("GET", "/api/me").then((user) => { saveUser(user); render(); adoptLang(user, true); })
    .catch((e) => { if (e.status === 401) { signOut(); render(); } });
}
if (!location.hash) location.hash = token() ? "#/lobby" : "#/login";
render();
