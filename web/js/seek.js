// Quick pairing in the lobby: "Play a person" for each game and format, the seeking panel (figures, Cancel),
// the bot offer after a while, and the bot level nearest the player's rating (docs/protocol.md, "Quick pairing").
import { call, currentUser } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { announce, live, rerender, send, toast } from "./live.js";
import { createTable4, levelName4, offeredLevel4 } from "./lobby4.js";

export const VARIANTS = ["tressette", "kifameno"];
const FORMATS = [0, 11, 21, 31]; // 0: a single deal; else a match to that many points (tressette.MATCH_TARGETS)
const DEFAULT_RATING = 1500;
let offerTimer = null;
let ratingsFor = null; // whose ratings were last asked for (null: ask again)
let ratingsOf = null; // whose ratings `live.ratings` holds

/** Return a format's name: "One deal", "To 11". */
export function formatName(target) {
  return target ? t("toPoints", { n: target }) : t("oneDeal");
}

/** Return the player's rating in `variant` (as the seek said, else the profile's, else 1500; null while the
 * profile is on its way: a guess would put the star on the wrong level for a moment). */
export function ratingIn(variant) {
  if (live.seek?.variant === variant) return live.seek.rating;
  if (!live.ratings) return null;
  return live.ratings[variant] ?? DEFAULT_RATING;
}

/** Return the served bot level whose measured rating is nearest `rating` (null when no bot rates its levels). */
export function nearestLevel(rating) {
  const rated = (live.botLevels ?? []).filter((level) => live.botRatings?.[level]);
  if (!rated.length) return null;
  return nearestOf(rated, rating);
}

/** Return the bot level to offer a seeker: the nearest rated one, else the middle one served (null: no bot). */
function offeredLevel(rating) {
  const served = live.botLevels ?? [];
  return nearestLevel(rating) ?? (served.includes("normal") ? "normal" : served[Math.floor(served.length / 2)] ?? null);
}

function nearestOf(rated, rating) {
  return rated.reduce((best, level) =>
    (Math.abs(live.botRatings[level] - rating) < Math.abs(live.botRatings[best] - rating) ? level : best));
}

/** Return the level to suggest in `variant`'s row of the bot panel. */
export function suggestedLevel(variant) {
  const rating = ratingIn(variant);
  return rating === null ? null : nearestLevel(rating);
}

/** Forget the ratings fetched: the next lobby asks again (a game may have moved them, or the account changed). */
export function staleRatings() {
  ratingsFor = null;
}

/** Fetch the player's ratings (once per visit to the lobby) so the lobby can suggest a bot of its level. */
export function loadRatings() {
  const me = currentUser();
  if (!me || ratingsFor === me.username) return;
  ratingsFor = me.username;
  if (ratingsOf !== me.username) live.ratings = null; // another account's (or none): no star until these are known
  const known = (ratings) => {
    if (ratingsFor !== me.username) return; // the account changed meanwhile: its own fetch is on the way
    live.ratings = ratings;
    ratingsOf = me.username;
    rerender();
  };
  call("GET", `/api/players/${encodeURIComponent(me.username)}`)
    .then((body) => known(Object.fromEntries(Object.entries(body.totals ?? {}).map(([v, x]) => [v, Math.round(x.rating)]))))
    .catch(() => known({})); // a new guest has no profile yet: 1500 everywhere
}

/** Take a `seeking` message: the seek is on (a new one starts its bot-offer clock). */
export function onSeeking(m) {
  // A seek for four is echoed with `variant: "partnership"` and no `game` (docs/protocol-four.md, "Quick pairing").
  // The friend named (`partner`) is not echoed: it is the one typed in the play panel when the seek was sent.
  if (m.variant === "partnership") {
    m = { ...m, game: "partnership", partner: live.seek?.game === "partnership" ? live.seek.partner
      : (live.pick4.partner ?? "").trim() || null };
  }
  const same = live.seek && live.seek.variant === m.variant && live.seek.target === m.target && live.seek.game === m.game;
  const startedAt = same ? live.seek.startedAt : Date.now();
  if (!same) announce(t(m.game === "partnership" ? "seekingTitle4" : "seekingTitle"));
  live.seek = { ...m, startedAt };
  live.online = m.online; // fresher than the lobby's figure, which is sent coalesced
  clearTimeout(offerTimer);
  const left = startedAt + m.bot_offer_ms - Date.now();
  if (left > 0) offerTimer = setTimeout(rerender, left + 50);
  rerender();
}

/** Take a `seek_ended` message. */
export function onSeekEnded(m) {
  live.seek = null;
  clearTimeout(offerTimer);
  if (m.reason === "paired") announce(t("opponentFound"));
  else if (m.reason === "replaced") toast(t("seekReplaced"), 4000);
  else if (m.reason === "failed") toast(t("err_internal"), 4000);
  rerender();
}

/** Show the seconds waited (the lobby is not redrawn for it: what the player types elsewhere stays). */
export function tickSeek() {
  const box = document.getElementById("seek-elapsed");
  if (box && live.seek) box.textContent = t("seekingElapsed", { s: clock(Date.now() - live.seek.startedAt) });
}

/** Return a time waited as minutes and seconds, e.g. "0:07", "2:15". */
function clock(ms) {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function seekingPanel(seek) {
  const waited = Date.now() - seek.startedAt;
  const four = seek.game === "partnership"; // quick pairing for four: the bots fill the missing seats
  const level = four ? offeredLevel4(seek.rating) : offeredLevel(seek.rating);
  const rating = four ? live.partnershipRatings?.[level] : live.botRatings?.[level];
  const name = level && (four ? levelName4(level) : t(level));
  const offer = waited >= seek.bot_offer_ms && level;
  return h("section", { class: "panel seeking", id: "seeking", "aria-labelledby": "seeking-title" },
    h("div", { class: "row" },
      h("span", { class: "spinner", "aria-hidden": "true" }),
      h("h2", { id: "seeking-title" }, four ? t("seekingTitle4") : t("seekingTitle"))),
    h("p", { class: "seek-what" }, h("strong", {}, four ? t("partnershipGame") : t(seek.variant)), " · ", formatName(seek.target)),
    four && seek.partner ? h("p", { id: "seek-partner-named" }, t("seekingWithPartner", { name: seek.partner })) : null,
    h("p", { id: "seek-figures", role: "status" },
      // For four, fewer than four waiting are not out of range: a table needs four of them.
      four && seek.waiting > 1 && seek.waiting < 4 ? t("seekingFour", { n: seek.waiting })
        : seek.waiting > 1 ? t("seekingOthers", { n: seek.waiting - 1 }) : t("seekingAlone"), " · ",
      t("online", { n: seek.online })),
    h("p", { class: "note", id: "seek-range" }, t("seekingRange", { rating: seek.rating, range: seek.range })),
    h("p", { class: "note", id: "seek-elapsed" }, t("seekingElapsed", { s: clock(waited) })),
    offer ? h("div", { class: "bot-offer", id: "bot-offer-box" },
      h("p", {}, four ? t("botOffer4") : t("botOffer")),
      h("button", { id: "bot-offer", onclick: () => send(four
        ? createTable4({ target: seek.target, declarations: null, signals: true, opponent: "bot", level })
        : { type: "create_table", variant: seek.variant, opponent: "bot", bot_level: level, target: seek.target }) },
      rating ? t("botOfferButton", { level: name, n: rating }) : t("botOfferPlain", { level: name })),
      h("p", { class: "note" }, t("botOfferKeep"))) : null,
    h("div", { class: "row" },
      h("button", { class: "ghost", id: "cancel-seek", onclick: () => send({ type: "cancel_seek" }) }, t("cancel"))));
}

/** Return the play panel's "Play a person" part for the game and format chosen (lobby.js), or the seeking panel
 * while a seek is on. */
export function personPanel() {
  loadRatings();
  if (live.seek) return seekingPanel(live.seek);
  const { variant, target } = live.pick;
  return h("div", { class: "person", id: "play-person" },
    h("h3", { class: "play-with" }, t("playPerson")),
    h("div", { class: "row" },
      h("button", { class: "seek ghost", "data-seek": `${variant}-${target}`, onclick: () => send({ type: "seek", variant, target }) },
        t("seekButton", { game: t(variant), format: formatName(target) }))),
    h("p", { class: "note" }, t("personHint")));
}
