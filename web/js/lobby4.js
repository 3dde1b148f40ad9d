// The lobby's four-player parts (lobby.js): "Play a partnership game" in the play panel (you and a bot partner
// against two bots at a level, a table open for people, or quick pairing for four), the new-table form's choices for
// four, and a four-player table in the lists with its four seats (docs/protocol-four.md, `create_table`, `join_table`).
import { h } from "./dom.js";
import { formatName4, GAME, SEATS4, TARGETS4, teamChip } from "./four.js";
import { t } from "./i18n.js";
import { live, rerender, send } from "./live.js";

/** Return the four-player bot levels to offer: those the lobby announced, else the one rule-based level. */
export function levels4() {
  return live.partnershipLevels?.length ? live.partnershipLevels : ["rules"];
}

/** Return the level a list starts on: the rule-based one (the server's default, a newcomer's match), else the
 * weakest offered. */
function firstChoice4() {
  return levels4().includes("rules") ? "rules" : levels4()[0];
}

/** Return a four-player level's name: its own word ("rule-based"), else the two-player ladder's ("master"), else
 * the name as the bot announced it. */
export function levelName4(level) {
  const own = `level4_${level}`;
  return t(own) !== own ? t(own) : t(level);
}

/** Return a four-player level's measured rating, as its bots announce it (null: unrated). */
function rating4(level) {
  return live.partnershipRatings?.[level] ?? null;
}

/** Return a level's strength as the two-player buttons show it: "≈1720", or "unrated" when nobody measured it. */
function strength4(level) {
  const r = rating4(level);
  return r ? `≈${r}` : t("unrated");
}

/** Return a four-player level's label for a list: "master · ≈1720", "rule-based · unrated". */
export function levelLabel4(level) {
  return `${levelName4(level)} · ${strength4(level)}`;
}

/** Return the rated level served nearest ``rating`` (null: no level is rated, or the rating is not known yet). */
function nearestLevel4(rating) {
  const rated = levels4().filter((level) => rating4(level) !== null && live.partnershipLevels?.includes(level));
  if (!rated.length || rating === null) return null;
  return rated.reduce((best, level) => (Math.abs(rating4(level) - rating) < Math.abs(rating4(best) - rating) ? level : best));
}

/** Return the bot level to offer a seeker for four whose rating is ``rating``: the nearest rated one served, else
 * the rule-based one. */
export function offeredLevel4(rating) {
  return nearestLevel4(rating) ?? firstChoice4();
}

/** Return a select of the four-player levels (labelled with their ratings); the choice is kept in ``form[key]``. */
export function levelSelect4(id, form, key, onchange = () => {}) {
  const chosen = levels4().includes(form[key]) ? form[key] : firstChoice4();
  return h("select", { id, "aria-label": t("level"), onchange: (e) => { form[key] = e.target.value; onchange(); } },
    levels4().map((lv) => h("option", { value: lv, selected: lv === chosen }, levelLabel4(lv))));
}

/** Return whether declarations are on for ``target`` when the player has not chosen (on for 31 and 41). */
function declarationsFor(choice, target) {
  return choice ?? target >= 31;
}

/** Return a `create_table` message for a four-player table (``opponent``: "bot", "anyone" or "invite"). */
export function createTable4({ target, declarations, signals, opponent, level = null }) {
  const msg = { type: "create_table", game: GAME, variant: "tressette", target, declarations: declarationsFor(declarations, target),
    signals, opponent };
  if (opponent === "bot") msg.bot_level = level;
  return msg;
}

/** Return the `seek` for quick pairing for four: `game`, `target` and, if named, the friend to sit across from
 * (`partner`; a `variant` is `bad_message` there). */
export function seek4(target, partner = null) {
  const msg = { type: "seek", game: GAME, target };
  const name = (partner ?? "").trim();
  if (name) msg.partner = name;
  return msg;
}

/** Return the play panel's part for four: format, options, the bots at a level (the one nearest ``rating``, the
 * player's four-player rating, starred and gold as in the two-player row; none while it is not known), a table for
 * people, pairing. */
export function partnershipPlay(toggle, rating) {
  const pick = live.pick4;
  const decl = declarationsFor(pick.declarations, pick.target);
  const served = live.partnershipLevels;
  // Before any level is rated there is nothing to suggest: every button is gold, as the one way in.
  const anyRated = levels4().some((level) => rating4(level) !== null);
  const suggested = nearestLevel4(rating);
  const levelButtons = levels4().map((level) => h("button", {
    class: level === suggested ? "quick-play suggested" : anyRated ? "quick-play ghost" : "quick-play",
    "data-quick4": level, "data-suggested": level === suggested ? "" : null,
    disabled: Array.isArray(served) && !served.includes(level),
    title: [level === suggested ? t("yourLevel") : null, rating4(level) ? t("strengthOf", { n: rating4(level) }) : null]
      .filter(Boolean).join(" · ") || null,
    "aria-label": level === suggested ? `${levelName4(level)}, ${t("yourLevel")}` : null,
    onclick: () => send(createTable4({ ...pick, opponent: "bot", level })) },
  level === suggested ? h("span", { class: "star", "aria-hidden": "true" }, "★ ") : null,
  levelName4(level), h("span", { class: "rating" }, h("span", { class: "sep" }, " · "), strength4(level))));
  const partner = h("input", { id: "seek-partner", maxlength: 32, autocomplete: "off", spellcheck: "false",
    value: pick.partner ?? "", placeholder: t("partnerPlaceholder"), oninput: (e) => { pick.partner = e.target.value; } });
  return [
    h("div", { class: "row pick-row", role: "group", "aria-label": t("format") },
      TARGETS4.map((n) => toggle(`pick4-${n}`, pick.target === n, formatName4(n), () => { pick.target = n; }))),
    h("div", { class: "row pick-row", role: "group", "aria-label": t("tableOptions") },
      toggle("pick4-declarations", decl, `${decl ? "✓ " : ""}${t("optDeclarations")}`, () => { pick.declarations = !decl; }),
      toggle("pick4-signals", pick.signals, `${pick.signals ? "✓ " : ""}${t("optSignals")}`, () => { pick.signals = !pick.signals; })),
    h("h3", { class: "play-with" }, t("playBots4")),
    h("p", { class: "note" }, t("playBots4Hint")),
    h("div", { class: "row quick", id: "bot-levels4" }, levelButtons),
    Array.isArray(served) && !served.length ? h("p", { class: "note", id: "bot-starting4", role: "status" }, t("botStarting")) : null,
    suggested ? h("p", { class: "note", id: "suggested-note4" }, t("suggestedNote")) : null,
    anyRated ? h("p", { class: "note", id: "strength-note4" }, t("strengthNote")) : null,
    h("h3", { class: "play-with" }, t("playPeople4")),
    h("div", { class: "row" },
      h("button", { class: "ghost", id: "open4", onclick: () => send(createTable4({ ...pick, opponent: "anyone" })) }, t("openTable4"))),
    h("p", { class: "note" }, t("people4Hint")),
    h("div", { class: "row seek4" },
      h("label", { class: "partner-field", for: "seek-partner" }, t("partnerField")), partner,
      h("button", { class: "seek ghost", "data-seek": `partnership-${pick.target}`,
        onclick: () => send(seek4(pick.target, pick.partner)) },
      t("seekButton4", { format: formatName4(pick.target) }))),
    h("p", { class: "note", id: "partner-hint" }, t("partnerHint")),
  ];
}

/** Return the new-table form's fields for four (the form's choices live in ``live.form``). */
export function partnershipFields(form) {
  const target = String(form.target4 ?? "31");
  const decl = declarationsFor(form.declarations4 ?? null, Number(target));
  const select = (id, key, values, name) => h("select", { id, onchange: (e) => { form[key] = e.target.value; rerender(); } },
    values.map((v) => h("option", { value: v, selected: String(v) === String(form[key] ?? values[0]) }, name(v))));
  const check = (id, on, label, flip) => h("label", { class: "check" },
    h("input", { type: "checkbox", id, checked: on, onchange: () => { flip(); rerender(); } }), ` ${label}`);
  return [
    h("label", {}, t("format"), " ", select("target4", "target4", ["31", "0", "21", "41"], (v) => t(`format_${v}`))),
    h("label", {}, t("opponent"), " ", select("opponent4", "opponent4", ["anyone", "bot", "invite"], (v) => t(v === "bot" ? "bots4" : v))),
    (form.opponent4 ?? "anyone") === "bot" ? h("label", { id: "level4-field" }, t("level"), " ",
      levelSelect4("level4", form, "level4", rerender)) : null,
    check("declarations4", decl, t("optDeclarations"), () => { form.declarations4 = !decl; }),
    check("signals4", form.signals4 ?? true, t("optSignals"), () => { form.signals4 = !(form.signals4 ?? true); }),
  ];
}

/** Return the `create_table` message of the new-table form for four. */
export function formMessage4(form) {
  const opponent = form.opponent4 ?? "anyone";
  return createTable4({ target: Number(form.target4 ?? 31), declarations: form.declarations4 ?? null,
    signals: form.signals4 ?? true, opponent, level: levels4().includes(form.level4) ? form.level4 : firstChoice4() });
}

/** Return the lobby list's row of a four-player table: its format and options, the two sides, a button per free seat. */
export function tableRow4(tb, own, goTo) {
  const names = (team) => [team, team + 2].map((s) => tb.players[s] ?? t("freeSeat")).join(" & ");
  const sides = h("span", { class: "sides4" }, teamChip(0), " ", names(0), h("span", { class: "versus" }, ` ${t("versus")} `),
    teamChip(1), " ", names(1));
  const free = SEATS4.filter((s) => !tb.players[s]);
  let action;
  if (own) action = h("button", { onclick: () => goTo(tb.id), "data-back": tb.id }, t("backToTable"));
  else if (tb.status === "waiting" && free.length) {
    action = h("div", { class: "row seats4" }, free.map((seat) => {
      const partner = tb.players[(seat + 2) % 4];
      return h("button", { "data-join": tb.id, "data-seat": seat,
        onclick: () => send({ type: "join_table", table_id: tb.id, seat }) },
      partner ? t("sitWith", { name: partner }) : t("sitSeat", { n: seat + 1 }));
    }));
  } else action = h("button", { class: "ghost", onclick: () => goTo(tb.id), "data-watch": tb.id }, t("watch"));
  const options = [tb.options?.declarations ? t("optDeclarations") : null, tb.options?.signals ? t("optSignals") : null].filter(Boolean);
  const game = `${t("partnershipGame")} · ${t(`format_${tb.target ?? 0}`)}${options.length ? ` · ${options.join(", ")}` : ""}`;
  return h("tr", { "data-game": "partnership", "data-table": tb.id }, h("td", {}, game), h("td", {}, sides), h("td", {}, action));
}
