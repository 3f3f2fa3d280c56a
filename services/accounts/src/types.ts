// The Worker's bindings and the slice of the D1 API it uses (declared here so
// the service needs no extra types package).

export interface D1Result<T = Record<string, unknown>> {
  results: T[];
  success: boolean;
  meta: { changes?: number; [k: string]: unknown };
}

export interface D1PreparedStatement {
  bind(...values: unknown[]): D1PreparedStatement;
  first<T = Record<string, unknown>>(): Promise<T | null>;
  all<T = Record<string, unknown>>(): Promise<D1Result<T>>;
  run(): Promise<D1Result>;
}

export interface D1Database {
  prepare(sql: string): D1PreparedStatement;
  batch(statements: D1PreparedStatement[]): Promise<D1Result[]>;
}

export interface Env {
  DB: D1Database;
  /** Secret mixed into every stored token hash; set with `wrangler secret put PEPPER`. */
  PEPPER?: string;
  /** Comma-separated origins whose cookie-authenticated requests are accepted. */
  ALLOWED_ORIGINS?: string;
  /** Base URL of the web front end; email links point there. */
  APP_URL?: string;
  MAIL_FROM?: string;
  /** Transactional-email HTTP API (POST JSON {from,to,subject,text}, Bearer MAIL_API_KEY). */
  MAIL_API_URL?: string;
  MAIL_API_KEY?: string;
  /** "1" only in local development: outbox mailer fallback, /v1/dev routes, injectable clock. Never set in wrangler.toml. */
  DEV_MODE?: string;
  /** Development/benchmark override of the PBKDF2 iteration count (ignored unless DEV_MODE is "1"). */
  DEV_PBKDF2_ITERATIONS?: string;
}

export interface User {
  id: string;
  email: string;
  email_verified_at: number | null;
  password_hash: string;
  username: string | null;
  display_name: string | null;
  bio: string | null;
  avatar_url: string | null;
  created_at: number;
  updated_at: number;
}

export interface AuthedSession {
  id: string;
  userId: string;
  kind: "cookie" | "token";
  expiresAt: number;
}

export interface ExecutionCtx {
  waitUntil(p: Promise<unknown>): void;
}
