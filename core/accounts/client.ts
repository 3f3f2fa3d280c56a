// HTTP client for the reasonix.io accounts API (services/accounts). The CLI
// authenticates with `Authorization: Bearer <token>`; the token comes once,
// in the body of a `mode: "token"` login.
import { ReasonixError, UsageError } from "../errors.ts";

export const DEFAULT_ACCOUNTS_URL = "https://accounts.reasonix.io";

export interface AccountUser {
  id: string;
  email: string;
  emailVerified: boolean;
  username: string | null;
  displayName: string | null;
  bio: string | null;
  avatarUrl: string | null;
  createdAt: string;
}

export interface LoginResult {
  token: string;
  user: AccountUser;
  session: { id: string; expiresAt: string };
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/** Normalise a base URL; plain http only to loopback, so a password never crosses a network in clear text. */
export function accountsUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`--url: "${raw}" is not a URL`);
  }
  if (u.protocol !== "https:" && !(u.protocol === "http:" && LOOPBACK.test(u.hostname))) {
    throw new UsageError(`--url: ${raw} must use https:// (plain http only for localhost)`);
  }
  if (u.search || u.hash || u.username || u.password) throw new UsageError(`--url: ${raw} must not have credentials, a query or a fragment`);
  return u.href.replace(/\/+$/, "");
}

export class AccountsError extends ReasonixError {
  constructor(readonly status: number, readonly apiCode: string, message: string, hint?: string) {
    super(`accounts_${apiCode}`, message, { hint });
  }
}

export class AccountsClient {
  constructor(readonly url: string, private token?: string, private timeoutMs = 15_000) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T | null> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: "error", signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (e) {
      throw new ReasonixError("accounts_unreachable", `cannot reach the accounts service at ${this.url}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (res.status === 204) return null;
    const text = await res.text();
    let data: any;
    try {
      data = JSON.parse(text);
    } catch {
      throw new AccountsError(res.status, "bad_response", `${method} ${this.url}${path}: HTTP ${res.status} with a non-JSON body`);
    }
    if (!res.ok) {
      const code = typeof data?.error === "string" ? data.error : "http_error";
      const retry = res.headers.get("retry-after");
      const msg = typeof data?.message === "string" ? data.message : `HTTP ${res.status}`;
      throw new AccountsError(res.status, code, `${msg} (HTTP ${res.status})`, retry ? `try again in ${retry} s` : undefined);
    }
    return data as T;
  }

  login(email: string, password: string): Promise<LoginResult> {
    return this.call<LoginResult>("POST", "/v1/login", { email, password, mode: "token" }) as Promise<LoginResult>;
  }

  async me(): Promise<AccountUser> {
    return (await this.call<{ user: AccountUser }>("GET", "/v1/me"))!.user;
  }

  async logout(): Promise<void> {
    await this.call("POST", "/v1/logout");
  }
}
