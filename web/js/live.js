// What the page knows live from the server (the socket's messages), shared by the lobby and the table views.
import { cardName, plural, suitToPlay, t } from "./i18n.js";

export const live = {
  socket: null,
  lobby: [], // public tables: open ones and games in progress
  online: 0, // people connected
  botLevels: null, // levels a connected bot serves now (null: not told yet)
  botRatings: {}, // each level's measured rating, as the bots announce it (agent/levels.py)
  partnershipLevels: null, // four-player bot levels served now (the lobby's `partnership_levels`; null: not told)
  partnershipRatings: {}, // each four-player level's measured rating (the lobby's `partnership_ratings`; none: unrated)
  seats: [], // [{table_id, seat, status}]: tables where this account is seated (from `welcome`)
  tables: {}, // id -> the table snapshot shown (see table.js: trick holds delay it)
  chat: {}, // id -> chat lines
  moved: new Set(), // tables whose seat another tab or device took over
  invites: {}, // id -> the invite code of a private table opened by a #/join link (to watch it when full)
  left: new Set(), // tables this page left: their late messages are ignored
  confirmLeave: null, // the table whose "leave?" question is open
  showLast: false, // the last trick shown under the table (reset on every route change)
  draft: "", // the chat line being typed (survives re-renders)
  form: { variant: "tressette", opponent: "anyone", level: "normal", target: "0" },
  pick: { variant: "tressette", target: 0 }, // the lobby's play panel: the game and format for the bot or a person
  pick4: { target: 31, declarations: null, signals: true, partner: "" }, // the play panel's four-player choices
  // (null: the default; `partner`: the friend named for quick pairing, as typed)
  upgrade: { open: false, username: "", password: "" }, // a guest's registration form, as typed
  seek: null, // the seek under way (the last `seeking` message, with `startedAt`: when this page first heard of it)
  ratings: null, // the player's rating per game (its profile), for the bot level suggested (null: not known yet)
};

let redraw = () => {};

/** Set the function that redraws the page (app.js). */
export function onRedraw(fn) {
  redraw = fn;
}

// A redraw replaces the page's buttons: one between a press on a button (or card, or link) and its release
// would swallow the click (the release lands on a new button). So a redraw asked for meanwhile waits for the
// release, and then for the click it makes; at most HOLD_REDRAW_MS, so a release the page never sees holds it no
// longer. (Presses on selects and fields hold nothing: a select's list may take the release away from the page.)
const HOLD_REDRAW_MS = 5000;
const CLICKABLE = "button, a, .card";
const AFTER_RELEASE_MS = 50;
let pressedAt = 0;
let heldTimer = null;

function releaseRedraw() {
  pressedAt = 0;
  if (heldTimer === null) return;
  clearTimeout(heldTimer);
  heldTimer = setTimeout(() => { heldTimer = null; redraw(); }, AFTER_RELEASE_MS);
}

window.addEventListener("pointerdown", (e) => { pressedAt = e.target?.closest?.(CLICKABLE) ? performance.now() : 0; }, true);
for (const name of ["pointerup", "pointercancel", "blur"]) window.addEventListener(name, releaseRedraw, true);

/** Redraw the page from `live` (after the pointer's release, if one is pressed). */
export function rerender() {
  if (heldTimer !== null) return; // one is on its way
  const left = pressedAt ? HOLD_REDRAW_MS - (performance.now() - pressedAt) : 0;
  if (left <= 0) {
    redraw();
    return;
  }
  heldTimer = setTimeout(() => { heldTimer = null; pressedAt = 0; redraw(); }, left);
}

/** Send a message on the socket (queued while it reconnects). */
export function send(msg) {
  if (["open_table", "join_table", "watch_table", "create_table"].includes(msg.type) && msg.table_id) live.left.delete(msg.table_id);
  live.socket?.send(msg);
}

/** Show a short message at the bottom of the page. */
export function toast(text, ms = 3000) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, ms);
}

/** Tell screen readers something that just happened (a polite live region outside the redrawn page). */
export function announce(text) {
  const box = document.getElementById("announce");
  if (box && box.textContent !== text) box.textContent = text;
}

/** Return a server `error` message in the page's language: its code and parameters, the cards by their names. */
export function errorText(m) {
  const p = m.params ?? {};
  const code = m.code === "illegal_card" ? (p.reason ?? "bad_card") : m.code;
  const params = { ...p, card: p.card ? cardName(p.card) : "", suit: p.suit ? suitToPlay(p.suit) : "" };
  const key = `err_${code}`;
  const text = t(key, params);
  return text === key ? t("err_bad_message") : text;
}

/** Return a table's `notice` (`{code, message}`, or an older plain sentence) in the page's language. */
export function noticeText(notice) {
  if (!notice) return null;
  if (typeof notice === "string") return notice;
  const key = `notice_${notice.code}`;
  const text = t(key);
  return text === key ? notice.message : text;
}

/** Return an account form's refusal (an Error from api.js) in the page's language, by its code and params. */
export function formErrorText(e) {
  const p = e.params ?? {};
  if (e.code === "throttled" || e.code === "busy") return plural("form_throttled", p.seconds ?? 1, p.seconds ?? 1);
  if (e.code === "too_short") return plural(`form_short_${p.field === "username" ? "name" : "password"}`, p.min, p.min);
  const key = `form_${e.code}`;
  if (e.code && t(key) !== key) return t(key, p);
  if (e.status === 422) return t("form_bad_name"); // a value the form itself should have refused (too long)
  return e.status ? t("err_internal") : t("form_offline");
}
