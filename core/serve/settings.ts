import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { ReasonixError, UsageError } from "../errors.ts";
import { expandTilde } from "../home.ts";
import { isLoopbackHost, parseAddr } from "./addr.ts";
import { generateToken, hashPassword, type AuthConfig, type AuthMode } from "./auth.ts";

/** The `[serve]` section as loaded from config. */
export interface ServeConfig {
  addr?: string;
  auth_mode?: AuthMode;
  token?: string;
  password_hash?: string;
  behind_proxy?: boolean;
  public_hosts?: string[];
}

/** Command-line flags shared by `serve` and `web` (undefined = not given). */
export interface ServeFlags {
  addr?: string;
  auth?: AuthMode;
  token?: string;
  tokenFile?: string;
  password?: string;
  behindProxy?: boolean;
  publicHost?: string[];
  workspace?: string;
  allowUnauthenticated?: boolean;
}

export interface ResolvedSettings {
  host: string;
  port: number;
  auth: AuthConfig;
  /** True when the token was generated here (so printing it is the only way to share it). */
  tokenGenerated: boolean;
  /** Where the token came from; a token from a file is never printed. */
  tokenSource?: "generated" | "flag" | "file" | "config";
  behindProxy: boolean;
  publicHosts: string[];
  workspace: string;
}

/** Read a secret from a file that only its owner can read, like ssh does with keys. */
export function readSecretFile(path: string, what: string): string {
  const p = resolve(expandTilde(path));
  if (!existsSync(p)) throw new ReasonixError("secret_file", `${what} file ${p} does not exist`);
  const st = statSync(p);
  if (!st.isFile()) throw new ReasonixError("secret_file", `${what} file ${p} is not a regular file`);
  if ((st.mode & 0o077) !== 0) {
    throw new ReasonixError("secret_file", `${what} file ${p} is readable by other users (mode ${(st.mode & 0o777).toString(8).padStart(4, "0")})`, {
      hint: `chmod 600 ${p}`,
    });
  }
  const value = readFileSync(p, "utf8").trim();
  if (value === "" || /\s/.test(value)) throw new ReasonixError("secret_file", `${what} file ${p} must hold one ${what} on one line`);
  return value;
}

/**
 * Turn flags + config into listener and auth settings. `web` differs from
 * `serve` only in its default: a fresh token unless `--auth` says otherwise.
 */
export async function resolveSettings(kind: "serve" | "web", flags: ServeFlags, cfg: ServeConfig, cwd = process.cwd()): Promise<ResolvedSettings> {
  const { host, port } = parseAddr(flags.addr ?? (kind === "web" ? "127.0.0.1:8787" : cfg.addr || "127.0.0.1:8787"));
  const mode: AuthMode = flags.auth ?? (kind === "web" ? "token" : cfg.auth_mode ?? "token");
  if (!["none", "token", "password"].includes(mode)) throw new UsageError(`invalid --auth "${mode}"`, "use none, token or password");
  const behindProxy = flags.behindProxy ?? cfg.behind_proxy ?? false;

  if (flags.token !== undefined && flags.tokenFile !== undefined) throw new UsageError("give either --token or --token-file, not both");
  if ((flags.token !== undefined || flags.tokenFile !== undefined) && mode !== "token") throw new UsageError(`--token/--token-file need --auth token (auth is "${mode}")`);
  if (flags.password !== undefined && mode !== "password") throw new UsageError(`--password needs --auth password (auth is "${mode}")`);

  const exposed = !isLoopbackHost(host) || behindProxy;
  if (mode === "none" && exposed && !flags.allowUnauthenticated) {
    throw new UsageError(
      `refusing to serve ${host}:${port} without authentication: anyone who can reach it could run commands as you`,
      "use --auth token (default) or --auth password; pass --allow-unauthenticated only if another layer already authenticates every request",
    );
  }

  let auth: AuthConfig;
  let tokenSource: ResolvedSettings["tokenSource"];
  if (mode === "token") {
    let token: string;
    if (flags.tokenFile !== undefined) {
      token = readSecretFile(flags.tokenFile, "token");
      tokenSource = "file";
    } else if (flags.token !== undefined && flags.token !== "") {
      token = flags.token;
      tokenSource = "flag";
    } else if (kind === "serve" && cfg.token) {
      token = cfg.token;
      tokenSource = "config";
    } else {
      token = generateToken();
      tokenSource = "generated";
    }
    if (token.length < 16) throw new UsageError("the token must be at least 16 characters", "omit --token to have one generated");
    auth = { mode: "token", token };
  } else if (mode === "password") {
    if (flags.password !== undefined) {
      if (flags.password.length < 8) throw new UsageError("the password must be at least 8 characters");
      auth = { mode: "password", passwordHash: await hashPassword(flags.password) };
    } else if (cfg.password_hash) {
      if (!/^\$2[aby]\$\d\d\$/.test(cfg.password_hash)) throw new ReasonixError("config", "[serve].password_hash is not a bcrypt hash", { hint: "generate one with reasonix serve --hash-password --password '…'" });
      auth = { mode: "password", passwordHash: cfg.password_hash };
    } else {
      throw new UsageError("password mode needs --password or [serve].password_hash", "generate a hash with reasonix serve --hash-password --password '…'");
    }
  } else {
    auth = { mode: "none" };
  }

  const workspace = resolve(expandTilde(flags.workspace ?? cwd));
  if (!existsSync(workspace) || !statSync(workspace).isDirectory()) throw new UsageError(`workspace ${workspace} is not a directory`);

  return {
    host,
    port,
    auth,
    tokenGenerated: tokenSource === "generated",
    tokenSource,
    behindProxy,
    publicHosts: [...(cfg.public_hosts ?? []), ...(flags.publicHost ?? [])],
    workspace,
  };
}
