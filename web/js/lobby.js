// Signing in and the lobby (#/login, #/lobby): your tables first; one panel to play, where the game and the format
// are chosen once for the bot (a level, yours starred and gold) or a person; the full new-table form; open tables
// to join, games in progress to watch, and registering a guest account.
import { call, currentUser, saveSession } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { formErrorText, live, rerender, send, toast } from "./live.js";
import { formMessage4, partnershipFields, partnershipPlay, tableRow4 } from "./lobby4.js";
import { rulesButton } from "./rules.js";
import { formatName, loadRatings, personPanel, ratingIn, suggestedLevel, VARIANTS } from "./seek.js";

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

/** Return the lobby's play panel: the game and the format chosen once, then the bot at a level (your level the
 * one gold button: the first action of a first visit) or a person; while a seek is on, the seeking panel. */
function playPanel() {
  if (live.seek) return personPanel();
  loadRatings(); // the star of either row waits for the player's ratings
  const pick = live.pick;
  const toggle = (id, on, label, choose) => h("button", { type: "button", id, class: `pick${on ? " on" : " ghost"}`,
    "aria-pressed": on ? "true" : "false", onclick: () => { choose(); rerender(); } }, label);
  const served = live.botLevels; // levels a connected bot plays now (null until the lobby says)
  const starting = !served || served.length === 0;
  const variant = pick.variant;
  const variantRow = h("div", { class: "row pick-row", role: "group", "aria-label": t("variant") },
    VARIANTS.map((v) => toggle(`pick-${v}`, variant === v, t(v), () => { pick.variant = v; })),
    toggle("pick-partnership", variant === "partnership", t("partnershipGame"), () => { pick.variant = "partnership"; }),
    h("span", { class: "pick-goal", id: "pick-goal" }, t(`goal_${variant}`)));
  if (variant === "partnership") {
    // Four at the table: two against two (lobby4.js); the two-player panel below is unchanged.
    return h("section", { class: "panel play", id: "quick-play" },
      h("div", { class: "row" }, h("h2", {}, t("playTitle")), h("span", { class: "spacer" }), rulesButton("partnership")),
      variantRow, partnershipPlay(toggle, ratingIn("partnership")));
  }
  const suggested = suggestedLevel(variant); // the level whose rating is nearest the player's
  const rated = Object.keys(live.botRatings ?? {}).length > 0;
  const botButtons = levels().map((level) => h("button", {
    class: level === suggested ? "quick-play suggested" : "quick-play ghost", "data-quick": `${variant}-${level}`,
    disabled: !served?.includes(level), "data-suggested": level === suggested ? "" : null,
    onclick: () => send({ type: "create_table", variant, opponent: "bot", bot_level: level, target: pick.target }),
    title: [level === suggested ? t("yourLevel") : null,
      live.botRatings?.[level] ? t("strengthOf", { n: live.botRatings[level] }) : null].filter(Boolean).join(" · ") || null,
    "aria-label": level === suggested ? `${t(level)}, ${t("yourLevel")}` : null,
  }, level === suggested ? h("span", { class: "star", "aria-hidden": "true" }, "★ ") : null, t(level),
  live.botRatings?.[level] ? h("span", { class: "rating" }, h("span", { class: "sep" }, " · "), `≈${live.botRatings[level]}`) : null));
  return h("section", { class: "panel play", id: "quick-play" },
    h("div", { class: "row" }, h("h2", {}, t("playTitle")), h("span", { class: "spacer" }), rulesButton()),
    variantRow,
    h("div", { class: "row pick-row", role: "group", "aria-label": t("format") },
      TARGETS.map(Number).map((n) => toggle(`pick-${n}`, pick.target === n, formatName(n), () => { pick.target = n; }))),
    h("h3", { class: "play-with" }, t("playBot")),
    h("div", { class: "row quick", id: "bot-levels" }, botButtons),
    starting ? h("p", { class: "note", id: "bot-starting", role: "status" }, t("botStarting")) : null,
    rated ? h("p", { class: "note", id: "suggested-note" }, t("suggestedNote")) : null,
    rated ? h("p", { class: "note", id: "strength-note" }, t("strengthNote")) : null,
    personPanel());
}

function newTableForm() {
  // Every lobby update re-renders this view, so the choices live in `live.form`: a table appearing must not reset them.
  const form = live.form;
  const choice = (id, values, name = (v) => t(v)) => h("select", { id, onchange: (e) => { form[id] = e.target.value; rerender(); } },
    values.map((v) => h("option", { value: v, selected: v === form[id] }, name(v))));
  const variant = choice("variant", [...VARIANTS, "partnership"], (v) => t(v === "partnership" ? "partnershipGame" : v));
  if (form.variant === "partnership") {
    return h("section", { class: "panel" }, h("h2", {}, t("newTable")),
      h("div", { class: "row" }, h("label", {}, t("variant"), " ", variant), partnershipFields(form),
        h("button", { class: "ghost", id: "create", onclick: () => send(formMessage4(form)) }, t("create"))));
  }
  const target = choice("target", TARGETS, (v) => t(`format_${v}`));
  const opponent = choice("opponent", ["anyone", "bot", "invite"]);
  const level = choice("level", levels());
  const create = () => send({ type: "create_table", variant: variant.value, opponent: opponent.value,
    bot_level: opponent.value === "bot" ? level.value : null, target: Number(target.value) });
  return h("section", { class: "panel" }, h("h2", {}, t("newTable")),
    h("div", { class: "row" }, h("label", {}, t("variant"), " ", variant), h("label", {}, t("format"), " ", target),
      h("label", {}, t("opponent"), " ", opponent),
      form.opponent === "bot" ? h("label", { id: "level-field" }, t("level"), " ", level) : null,
      h("button", { class: "ghost", id: "create", onclick: create }, t("create"))));
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
  if (tb.game === "partnership") return tableRow4(tb, own, goTo);
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

/** Return the tables where this account sits, running ones first (a finished deal waiting for a rematch last). */
function ownTables(me) {
  const ids = [...new Set([...live.seats.map((st) => st.table_id), ...live.lobby.filter((tb) => mine(tb, me)).map((tb) => tb.id)])]
    .filter((id) => !live.left.has(id));
  const rank = { playing: 0, waiting: 1, finished: 2 };
  return ids.map((id) => {
    const listed = live.lobby.find((tb) => tb.id === id);
    const shown = live.tables[id];
    const status = listed?.status ?? shown?.status ?? live.seats.find((st) => st.table_id === id)?.status ?? "playing";
    return { id, status, listed, shown };
  }).sort((a, b) => (rank[a.status] ?? 1) - (rank[b.status] ?? 1));
}

function ownRow({ id, status, listed, shown }) {
  const variant = listed?.variant ?? shown?.variant;
  const target = listed?.target ?? shown?.match?.target;
  const players = listed?.players ?? shown?.players?.map((p) => p?.username ?? null);
  const four = (listed?.game ?? shown?.game) === "partnership";
  const name = four ? t("partnershipGame") : t(variant);
  // A table known only from `welcome` (a finished deal seen before this page loaded): its name, not a blank.
  const game = variant ? (target ? `${name} · ${t(`format_${target}`)}` : name) : t("tableOfYours");
  const running = status === "playing";
  return h("tr", { "data-own": id, "data-status": status },
    h("td", {}, game), h("td", {}, players ? players.map((p) => p ?? "—").join(" · ") : "—"), h("td", {}, t(status)),
    h("td", {}, h("button", { class: running ? "" : "ghost", onclick: () => goTo(id), "data-back": id }, t("backToTable"))));
}

/** Return the lobby page: your tables first, then one panel to play (the bot or a person), then the rest. */
export function lobbyView() {
  const me = currentUser();
  const others = live.lobby.filter((tb) => !mine(tb, me)); // your own are listed at the top
  const waiting = others.filter((tb) => tb.status === "waiting");
  const playing = others.filter((tb) => tb.status !== "waiting");
  const own = ownTables(me);
  const list = (id, rows, empty) => (rows.length ? h("table", { class: "list", id }, h("tbody", {}, rows)) : h("p", { class: "hint" }, empty));
  return h("div", {},
    h("p", { class: "online", id: "online" }, t("online", { n: live.online })),
    own.length ? h("section", { class: "panel", id: "your-tables" }, h("h2", {}, t("yourTables")),
      h("table", { class: "list" }, h("tbody", {}, own.map(ownRow)))) : null,
    playPanel(),
    newTableForm(),
    h("section", { class: "panel" }, h("h2", {}, t("openTables")), list("open-tables", waiting.map((tb) => tableRow(tb, me)), t("noTables"))),
    h("section", { class: "panel" }, h("h2", {}, t("inProgress")), list("live-tables", playing.map((tb) => tableRow(tb, me)), t("nobodyPlaying"))),
    guestPanel(me));
}
