// Small DOM helpers shared by the pages; server text is always inserted as text, never parsed as HTML.
import { percent, t } from "./i18n.js";

/** Return a new element with attributes (on* become listeners) and children (strings become text nodes). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c); // text is never parsed as HTML
  return node;
}

/** Replace `node`'s children, skipping null and undefined (replaceChildren would write them as "null"). */
export function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/** Return the page's words for an error thrown by api.js: by its HTTP status (``what``: "game", "match" or "player"
 * names what was asked for), never the server's English detail. An error made by the page carries its own words
 * (``localized``). */
export function errorText(err, what = null) {
  if (err.localized) return err.message;
  const named = (key) => (what && t(`${key}_${what}`) !== `${key}_${what}` ? t(`${key}_${what}`) : t(key));
  if (err.status === 401) return t("e43_signin");
  if (err.status === 403) return named("e43_403");
  if (err.status === 404) return named("e43_404");
  if (err.status === 429) return t("e43_throttled");
  if (err.code && t(`form_${err.code}`) !== `form_${err.code}`) return t(`form_${err.code}`, err.params ?? {});
  return err.status ? `${t("err_internal")} (${err.status})` : t("form_offline"); // the status: for a bug report
}

/** Return a visible error line for an error thrown by api.js, in the page's language (see ``errorText``). */
export function errorBox(err, id = null, what = null) {
  return h("p", { class: "error", role: "alert", id }, errorText(err, what));
}

/** Return a scrollable table: headers is a list of strings, rows a list of {attrs, cells}, classes per column. */
export function dataTable(id, headers, rows, classes = []) {
  return h("div", { class: "scroll" },
    h("table", { class: "list data", id },
      h("thead", {}, h("tr", {}, headers.map((x, i) => h("th", { scope: "col", class: classes[i] ?? null }, x)))),
      h("tbody", {}, rows.map((r) => h("tr", r.attrs ?? {}, r.cells.map((c, i) => h("td", { class: classes[i] ?? null }, c)))))));
}

/** Return a win share (0..1) as a percentage with one decimal in the page's language, e.g. "62.5%", "62,5 %". */
export function share(x) {
  return percent(x);
}

/** Return a rating (with its deviation when given, hidden on narrow screens) rounded, e.g. "1523 ± 87";
 * a provisional one (deviation still high) is marked "1523?". */
export function rating(value, rd, provisional = false) {
  return h("span", provisional ? { class: "provisional", title: t("provisional") } : {},
    `${Math.round(value)}${provisional ? t("provisionalMark") : ""}`,
    rd === undefined || rd === null ? null : h("span", { class: "rd" }, ` ± ${Math.round(rd)}`));
}

/** Return an ISO time as local "YYYY-MM-DD HH:MM" (or "—"). */
export function when(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** Return a link to a player's profile. */
export function playerLink(name) {
  if (!name) return "—";
  return h("a", { href: `#/player/${encodeURIComponent(name)}`, class: "player-link" }, name);
}
