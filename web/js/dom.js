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

/** Return a visible error line for an error thrown by api.js (with the HTTP status when there is one). */
export function errorBox(err, id = null) {
  const label = { 401: t("err401"), 403: t("err403"), 404: t("err404") }[err.status] ?? t("errOther");
  const code = err.status ? ` (${err.status})` : "";
  return h("p", { class: "error", role: "alert", id }, `${label}${code}: ${err.message}`);
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

/** Return a rating (with its deviation when given, hidden on narrow screens) rounded, e.g. "1523 ± 87". */
export function rating(value, rd) {
  return h("span", {}, `${Math.round(value)}`,
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
