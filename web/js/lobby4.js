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

/** Return the `seek` for quick pairing for four: `game` and `target` only (a `variant` is `bad_message` there). */
export function seek4(target) {
  return { type: "seek", game: GAME, target };
}

/** Return the play panel's part for four: format, options, the bots at a level, a table for people, pairing. */
export function partnershipPlay(toggle) {
  const pick = live.pick4;
  const decl = declarationsFor(pick.declarations, pick.target);
  const served = live.partnershipLevels;
  const levelButtons = levels4().map((level) => h("button", { class: "quick-play", "data-quick4": level,
    disabled: Array.isArray(served) && !served.includes(level),
    onclick: () => send(createTable4({ ...pick, opponent: "bot", level })) }, t(`level4_${level}`)));
  return [
    h("div", { class: "row pick-row", role: "group", "aria-label": t("format") },
      TARGETS4.map((n) => toggle(`pick4-${n}`, pick.target === n, formatName4(n), () => { pick.target = n; }))),
    h("div", { class: "row pick-row", role: "group", "aria-label": t("tableOptions") },
      toggle("pick4-declarations", decl, `${decl ? "✓ " : ""}${t("optDeclarations")}`, () => { pick.declarations = !decl; }),
      toggle("pick4-signals", pick.signals, `${pick.signals ? "✓ " : ""}${t("optSignals")}`, () => { pick.signals = !pick.signals; })),
    h("h3", { class: "play-with" }, t("playBots4")),
    h("p", { class: "note" }, t("playBots4Hint")),
    h("div", { class: "row quick", id: "bot-levels4" }, levelButtons),
    h("h3", { class: "play-with" }, t("playPeople4")),
    h("div", { class: "row" },
      h("button", { class: "ghost", id: "open4", onclick: () => send(createTable4({ ...pick, opponent: "anyone" })) }, t("openTable4")),
      h("button", { class: "seek ghost", "data-seek": `partnership-${pick.target}`,
        onclick: () => send(seek4(pick.target)) },
      t("seekButton4", { format: formatName4(pick.target) }))),
    h("p", { class: "note" }, t("people4Hint")),
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
      select("level4", "level4", levels4(), (v) => t(`level4_${v}`))) : null,
    check("declarations4", decl, t("optDeclarations"), () => { form.declarations4 = !decl; }),
    check("signals4", form.signals4 ?? true, t("optSignals"), () => { form.signals4 = !(form.signals4 ?? true); }),
  ];
}

/** Return the `create_table` message of the new-table form for four. */
export function formMessage4(form) {
  const opponent = form.opponent4 ?? "anyone";
  return createTable4({ target: Number(form.target4 ?? 31), declarations: form.declarations4 ?? null,
    signals: form.signals4 ?? true, opponent, level: form.level4 ?? levels4()[0] });
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
