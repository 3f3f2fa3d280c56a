// JSON API calls to core/serve (same origin, session cookie).
export type Json = Record<string, any>;

export class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly code?: string, readonly field?: string) {
    super(message);
  }
}

/** Called on a 401 from /api/*: the cookie expired or the server restarted with a new token. */
export let onUnauthorized: () => void = () => {};
export const setUnauthorizedHandler = (fn: () => void) => {
  onUnauthorized = fn;
};

export async function api<T = Json>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: method === "GET" ? {} : { "content-type": "application/json" },
    body: method === "GET" ? undefined : JSON.stringify(body ?? {}),
  });
  if (res.status === 204) return {} as T;
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    if (res.status === 401 && path.startsWith("/api/")) onUnauthorized();
    throw new HttpError(res.status, data?.error?.message ?? `${res.status} ${res.statusText}`, data?.error?.code, data?.error?.field);
  }
  return data as T;
}

export const sessionPath = (id: string, action = "") => `/api/sessions/${encodeURIComponent(id)}${action ? `/${action}` : ""}`;
