// Signing in and the lobby (#/login, #/lobby): one-click bot games, the full new-table form, your tables,
// open tables to join, games in progress to watch, and registering a guest account.
import { call, currentUser, saveSession } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { formErrorText, live, rerender, send, toast } from "./live.js";
import { rulesButton } from "./rules.js";
import { personPanel, suggestedLevel, VARIANTS } from "./seek.js";

const TARGETS = ["0", "11", "21", "31"]; // a single deal, or a match to 11, 21 or 31 (tressette.MATCH_TARGETS)
let afterUpgrade = () => {};
const LEVELS = ["beginner", "novice", "easy", "normal", "strong", "master"]; // until the server says which levels the connected bots play

/** Return the bot levels to offer: those the connected bots announced (weakest first), else the usual three. */
function levels() {
  return live.botLevels?.length ? live.botLevels : LEVELS;
}

/** Return the sign-in page; `onSession` runs once a token is saved. */
export function loginView(onSession) {
  const user = h("input", { name: "username", autocomplete: "username", placeholder: t("username"), "aria-label": t("username") });
  const pass = h("input", { name: "password", type: "password", autocomplete: "current-password", placeholder: t("password"), "aria-label": t("password") });
  const err = h("p", { class: "error", hidden: true, role: "alert", id: "login-error" });
  const go = (path) => async () => {
    try {
      saveSession(await call("POST", path, path.endsWith("guest") ? null : { username: user.value, password: pass.value }));
      onSession();
      location.hash = "#/lobby";
    } catch (e) {
      err.hidden = false;
      err.textContent = formErrorText(e);
    }
  };
  return h("section", { class: "panel stack" },
    h("h1", {}, `${t("tressette")} · ${t("kifameno")}`),
    h("p", { class: "hint" }, `${t("tressette")}: ${t("goal_tressette")} · ${t("kifameno")}: ${t("goal_kifameno")}`),
    user, pass,
    h("div", { class: "row" },
      h("button", { onclick: go("/api/auth/login"), id: "login" }, t("signin")),
      h("button", { class: "ghost", onclick: go("/api/auth/register"), id: "register" }, t("register"))),
    h("button", { onclick: go("/api/auth/guest"), id: "guest" }, t("guest")), err, rulesButton());
}

function quickPlay() {
  const served = live.botLevels; // levels a connected bot plays now (null until the lobby says)
  const starting = !served || served.length === 0;
  const rows = VARIANTS.map((variant) => {
    const suggested = suggestedLevel(variant); // the level whose rating is nearest the player's
    return h("div", { class: "row quick" },
      h("strong", { class: "quick-name" }, t(variant)), h("span", { class: "hint" }, t(`goal_${variant}`)),
      levels().map((level) => h("button", {
        class: level === suggested ? "quick-play suggested" : "quick-play", "data-quick": `${variant}-${level}`,
        disabled: !served?.includes(level), "data-suggested": level === suggested ? "" : null,
        onclick: () => send({ type: "create_table", variant, opponent: "bot", bot_level: level }),
        title: [level === suggested ? t("yourLevel") : null,
          live.botRatings?.[level] ? t("strengthOf", { n: live.botRatings[level] }) : null].filter(Boolean).join(" · ") || null,
        "aria-label": level === suggested ? `${t(level)}, ${t("yourLevel")}` : null,
      }, level === suggested ? h("span", { class: "star", "aria-hidden": "true" }, "★ ") : null, t(level),
      live.botRatings?.[level]
        ? h("span", { class: "rating" }, h("span", { class: "sep" }, " · "), `≈${live.botRatings[level]}`) : null)));
  });
  const rated = Object.keys(live.botRatings ?? {}).length > 0;
  return h("section", { class: "panel", id: "quick-play" },
    h("div", { class: "row" }, h("h2", {}, t("playBot")), h("span", { class: "spacer" }), rulesButton()),
    rows, starting ? h("p", { class: "hint", id: "bot-starting", role: "status" }, t("botStarting")) : null,
    rated ? h("p", { class: "note", id: "strength-note" }, t("strengthNote")) : null,
    rated ? h("p", { class: "note", id: "suggested-note" }, t("suggestedNote")) : null);
}

function newTableForm() {
  // Every lobby update re-renders this view, so the choices live in `live.form`: a table appearing must not reset them.
  const form = live.form;
  const choice = (id, values, name = (v) => t(v)) => h("select", { id, onchange: (e) => { form[id] = e.target.value; rerender(); } },
    values.map((v) => h("option", { value: v, selected: v === form[id] }, name(v))));
  const variant = choice("variant", VARIANTS);
  const target = choice("target", TARGETS, (v) => t(`format_${v}`));
  const opponent = choice("opponent", ["anyone", "bot", "invite"]);
  const level = choice("level", levels());
  const create = () => send({ type: "create_table", variant: variant.value, opponent: opponent.value,
    bot_level: opponent.value === "bot" ? level.value : null, target: Number(target.value) });
  return h("section", { class: "panel" }, h("h2", {}, t("newTable")),
    h("div", { class: "row" }, h("label", {}, t("variant"), " ", variant), h("label", {}, t("format"), " ", target),
      h("label", {}, t("opponent"), " ", opponent),
      form.opponent === "bot" ? h("label", { id: "level-field" }, t("level"), " ", level) : null,
      h("button", { id: "create", onclick: create }, t("create"))));
}

// Opening a table's page takes your seat there (from another tab too) or, if you have none, watches it.
function goTo(id) {
  location.hash = `#/table/${id}`;
}

function mine(tb, me) {
  return Boolean(me && tb.players.includes(me.username));
}

function tableRow(tb, me) {
  const own = mine(tb, me);
  const players = tb.players.map((p) => p ?? "—").join(" · ") + (tb.bot_level ? ` (${t(tb.bot_level)})` : "");
  const action = own
    ? h("button", { onclick: () => goTo(tb.id), "data-back": tb.id }, t("backToTable"))
    : tb.status === "waiting"
      ? h("button", { onclick: () => send({ type: "join_table", table_id: tb.id }), "data-join": tb.id }, t("join"))
      : h("button", { class: "ghost", onclick: () => goTo(tb.id), "data-watch": tb.id }, t("watch"));
  const game = tb.target ? `${t(tb.variant)} · ${t(`format_${tb.target}`)}` : t(tb.variant);
  return h("tr", {}, h("td", {}, game), h("td", {}, players), h("td", {}, action));
}

function guestPanel(me) {
  if (me?.role !== "guest") return null;
  // Lobby updates redraw the page: what was typed and whether the panel is open live in `live.upgrade`.
  const form = live.upgrade;
  const keep = (key) => (e) => { form[key] = e.target.value; };
  const name = h("input", { id: "upgrade-username", autocomplete: "username", placeholder: t("username"), "aria-label": t("username"),
    oninput: keep("username") });
  const pass = h("input", { id: "upgrade-password", type: "password", autocomplete: "new-password", placeholder: t("password"),
    "aria-label": t("password"), oninput: keep("password") });
  name.value = form.username;
  pass.value = form.password;
  const err = h("p", { class: "error", hidden: true, role: "alert", id: "upgrade-error" });
  const submit = async (e) => {
    e.preventDefault();
    try {
      const body = await call("POST", "/api/auth/upgrade", { username: name.value, password: pass.value });
      saveSession(body);
      Object.assign(live.upgrade, { open: false, username: "", password: "" });
      live.socket?.close(); // the socket knew the guest's name: a new one speaks for the new account
      live.socket = null;
      toast(t("registered", { name: body.user.username }), 5000);
      afterUpgrade();
    } catch (e2) {
      err.hidden = false;
      err.textContent = formErrorText(e2);
    }
  };
  return h("details", { class: "panel", id: "guest-register", open: form.open, ontoggle: (e) => { form.open = e.target.open; } },
    h("summary", {}, t("registerGuest")),
    h("form", { class: "row", onsubmit: submit }, name, pass, h("button", { type: "submit", id: "upgrade" }, t("registerKeep"))), err);
}

/** Set what runs after a guest registered (app.js reconnects the socket). */
export function onUpgrade(fn) {
  afterUpgrade = fn;
}

/** Return the lobby page. */
export function lobbyView() {
  const me = currentUser();
  const waiting = live.lobby.filter((tb) => tb.status === "waiting");
  const playing = live.lobby.filter((tb) => tb.status !== "waiting");
  const own = live.seats.filter((s) => !live.left.has(s.table_id) && !live.lobby.some((tb) => tb.id === s.table_id && mine(tb, me)));
  const list = (id, rows, empty) => (rows.length ? h("table", { class: "list", id }, h("tbody", {}, rows)) : h("p", { class: "hint" }, empty));
  return h("div", {},
    h("p", { class: "online", id: "online" }, t("online", { n: live.online })),
    own.length ? h("section", { class: "panel", id: "your-tables" }, h("h2", {}, t("yourTables")),
      own.map((s) => h("p", {}, h("button", { onclick: () => goTo(s.table_id), "data-back": s.table_id }, t("backToTable"))))) : null,
    personPanel(),
    quickPlay(),
    newTableForm(),
    h("section", { class: "panel" }, h("h2", {}, t("openTables")), list("open-tables", waiting.map((tb) => tableRow(tb, me)), t("noTables"))),
    h("section", { class: "panel" }, h("h2", {}, t("inProgress")), list("live-tables", playing.map((tb) => tableRow(tb, me)), t("nobodyPlaying"))),
    guestPanel(me));
}
