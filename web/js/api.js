// HTTP calls to the server; the session token lives in localStorage.
export function token() {
  return localStorage.getItem("treset.token");
}

export function saveSession(body) {
  localStorage.setItem("treset.token", body.token);
  saveUser(body.user);
}

/** Remember the signed-in user ({id, username, role}) as the server last described it. */
export function saveUser(user) {
  localStorage.setItem("treset.user", JSON.stringify(user));
}

export function currentUser() {
  const raw = localStorage.getItem("treset.user");
  return raw ? JSON.parse(raw) : null;
}

export function signOut() {
  localStorage.removeItem("treset.token");
  localStorage.removeItem("treset.user");
}

/** Return an Error for a refused answer: the server's detail as message, the HTTP status as .status. */
async function httpError(res) {
  const data = await res.json().catch(() => ({}));
  const detail = typeof data.detail === "string" ? data.detail : (data.detail?.[0]?.msg ?? res.statusText);
  const err = new Error(detail || `HTTP ${res.status}`);
  err.status = res.status;
  err.code = data.code ?? null; // account forms: a code and its params, worded by the page (live.js formErrorText)
  err.params = data.params ?? {};
  return err;
}

export async function call(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (token()) headers.Authorization = `Bearer ${token()}`;
  const res = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  if (!res.ok) throw await httpError(res);
  return res.json().catch(() => ({}));
}

/** GET a non-JSON answer (text, a download) with the bearer token; return the Response or throw like call(). */
export async function fetchAuthed(path) {
  const headers = token() ? { Authorization: `Bearer ${token()}` } : {};
  const res = await fetch(path, { headers });
  if (!res.ok) throw await httpError(res);
  return res;
}

/** Return a query string of the non-empty values, e.g. "?a=1&b=x". */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : "";
}
