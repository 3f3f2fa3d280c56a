// Outgoing email. Production posts to a transactional-email HTTP API; local
// development stores messages in the D1 `outbox` table instead. Neither logs
// message bodies (they carry single-use tokens).
import type { Env } from "./types.ts";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  readonly kind: "http" | "outbox";
  send(mail: Mail): Promise<void>;
}

/** POST {from, to: [addr], subject, text} as JSON with `Authorization: Bearer <key>`. */
export class HttpMailer implements Mailer {
  readonly kind = "http";
  constructor(private url: string, private key: string, private from: string) {}
  async send(mail: Mail): Promise<void> {
    const res = await fetch(this.url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${this.key}` },
      body: JSON.stringify({ from: this.from, to: [mail.to], subject: mail.subject, text: mail.text }),
    });
    if (!res.ok) throw new Error(`mail API answered HTTP ${res.status}`);
  }
}

export class OutboxMailer implements Mailer {
  readonly kind = "outbox";
  constructor(private env: Env, private now: number) {}
  async send(mail: Mail): Promise<void> {
    await this.env.DB.prepare("INSERT INTO outbox (to_addr, subject, body, created_at) VALUES (?, ?, ?, ?)").bind(mail.to, mail.subject, mail.text, this.now).run();
  }
}

/** The configured mailer, or null when none is (production without MAIL_API_URL and MAIL_API_KEY). */
export function mailerFor(env: Env, now: number): Mailer | null {
  if (env.MAIL_API_URL) return env.MAIL_API_KEY ? new HttpMailer(env.MAIL_API_URL, env.MAIL_API_KEY, env.MAIL_FROM ?? "accounts@reasonix.io") : null;
  if (env.DEV_MODE === "1") return new OutboxMailer(env, now);
  return null;
}

const app = (env: Env) => (env.APP_URL ?? "https://reasonix.io").replace(/\/+$/, "");

export const messages = {
  verify: (env: Env, to: string, token: string): Mail => ({
    to,
    subject: "Confirm your Reasonix account",
    text: `Confirm this address for your Reasonix account:\n\n${app(env)}/verify-email#token=${token}\n\nThe link works once and expires in 24 hours. If you did not sign up, ignore this message.\n`,
  }),
  exists: (env: Env, to: string): Mail => ({
    to,
    subject: "Someone tried to sign up with your address",
    text: `A sign-up for Reasonix used this address, which already has an account. If it was you, log in, or reset your password at ${app(env)}/forgot-password.\nIf it was not you, nothing changed and you can ignore this message.\n`,
  }),
  reset: (env: Env, to: string, token: string): Mail => ({
    to,
    subject: "Reset your Reasonix password",
    text: `Set a new password for your Reasonix account:\n\n${app(env)}/reset-password#token=${token}\n\nThe link works once and expires in 1 hour; using it signs out every session. If you did not ask for this, ignore this message.\n`,
  }),
};
