// The accounts session token saved by `reasonix login`: its own 0600 file
// under $REASONIX_HOME, never config.toml.
import { chmodSync, existsSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { reasonixHome } from "../home.ts";

export interface Credentials {
  url: string;
  token: string;
  email: string;
  sessionId?: string;
  savedAt: string;
}

export const credentialsPath = (home = reasonixHome()) => join(home, "accounts.json");

export function readCredentials(path = credentialsPath()): Credentials | null {
  if (!existsSync(path)) return null;
  // Tighten permissions if someone loosened them: the file holds a bearer token.
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ConfigError(path, `not valid JSON (${e instanceof Error ? e.message : String(e)}); delete it and run reasonix login`);
  }
  const c = v as Partial<Credentials>;
  for (const k of ["url", "token", "email"] as const) {
    if (typeof c[k] !== "string" || c[k] === "") throw new ConfigError(path, `field "${k}" is missing or not a string; delete it and run reasonix login`);
  }
  return c as Credentials;
}

export function writeCredentials(c: Credentials, path = credentialsPath()): void {
  writeFileAtomic(path, `${JSON.stringify(c, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
}

export function deleteCredentials(path = credentialsPath()): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw e;
  }
}
