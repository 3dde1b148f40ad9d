// HTTP calls to the server; the session token lives in localStorage.
export function token() {
  return localStorage.getItem("treset.token");
}

export function saveSession(body) {
  localStorage.setItem("treset.token", body.token);
  localStorage.setItem("treset.user", JSON.stringify(body.user));
}

export function currentUser() {
  const raw = localStorage.getItem("treset.user");
  return raw ? JSON.parse(raw) : null;
}

export function signOut() {
  localStorage.removeItem("treset.token");
  localStorage.removeItem("treset.user");
}

export async function call(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (token()) headers.Authorization = `Bearer ${token()}`;
  const res = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const detail = typeof data.detail === "string" ? data.detail : (data.detail?.[0]?.msg ?? res.statusText);
    throw new Error(detail);
  }
  return data;
}
