/**
 * Which MCP servers a workspace declares, and which of them may start.
 *
 * Sources, by precedence on a name collision: the project's reasonix.toml
 * `[[plugins]]` > the project's `.mcp.json` (Claude Code's `mcpServers`
 * format, read as-is) > the user's config.toml `[[plugins]]`. Project
 * declarations start only in a trusted workspace (core/trust); until then
 * they are listed with the reason. `sandbox = false` counts only from the
 * user config (core/trust/policy.ts drops it from a project file; a
 * `.mcp.json` has no such field). `${VAR}` / `${VAR:-default}` in
 * command, args, env, cwd, url and headers expand when a server launches,
 * never when it is listed.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { LoadedConfig } from "../config/load.ts";
import { isTable } from "../config/validate.ts";
import { ReasonixError } from "../errors.ts";
import { reasonixHome } from "../home.ts";
import { SecretStore } from "../secrets/dotenv.ts";
import { inputTrusted } from "../trust/index.ts";
import { readProjectFile, sha256 } from "../trust/inputs.ts";
import { UNTRUSTED } from "../trust/policy.ts";
import { parseOAuth, type McpOAuthSpec } from "./oauth-config.ts";
import type { McpScope, McpTransport } from "../protocol/mcp.ts";

export type { McpScope, McpTransport };

export interface McpServerSpec {
  /** Name as used in tool names (`mcp__<name>__<tool>`): letters, digits, `_` and `-`. */
  name: string;
  type: McpTransport;
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  startupTimeoutMs: number;
  callTimeoutMs: number;
  /** Per raw tool name. */
  toolTimeoutMs: Record<string, number>;
  enabled: boolean;
  /** stdio only: run inside the OS sandbox. */
  sandbox: boolean;
  scope: McpScope;
  /** Where it is declared (file path). */
  file: string;
  /** Set when the server will not start, with why (e.g. the workspace is not trusted). */
  blocked?: string;
  /** Pre-registered client / client-credentials grant (user config only, see oauth-config.ts). */
  oauth?: McpOAuthSpec;
  /** Something in the declaration that was ignored, with why (shown as a problem). */
  ignored?: string;
}

export interface ResolvedServers {
  /** Effective declarations, one per name, sorted by name. */
  servers: McpServerSpec[];
  /** Lower-priority declarations hidden by a same-name one. */
  shadowed: McpServerSpec[];
  /** Files that could not be read (named, with why). */
  problems: string[];
}

export const DEFAULT_STARTUP_TIMEOUT_S = 30;
export const DEFAULT_CALL_TIMEOUT_S = 600;
export const NOT_TRUSTED = "not started: workspace not trusted (run `reasonix trust`)";

/** Server names become part of tool names; anything else is replaced by `_`. */
export const cleanName = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, "_");

const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const strMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (isTable(v)) for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x;
  return out;
};
const seconds = (v: unknown, def: number): number => (typeof v === "number" && v > 0 ? v * 1000 : def * 1000);

function transportOf(raw: unknown, hasUrl: boolean, where: string): McpTransport {
  if (raw === undefined) return hasUrl ? "http" : "stdio";
  if (raw === "stdio" || raw === "http" || raw === "sse") return raw;
  if (raw === "streamable-http" || raw === "streamableHttp") return "http";
  throw new ReasonixError("mcp-config", `${where}: type must be stdio, http or sse, not ${JSON.stringify(raw)}`);
}

/** One `[[plugins]]` table or `.mcp.json` entry as a spec. */
export function specFrom(raw: Record<string, unknown>, scope: McpScope, file: string, fallbackName?: string): McpServerSpec {
  const name = cleanName(String(raw.name ?? fallbackName ?? ""));
  const where = `${file}: server "${name}"`;
  if (!name) throw new ReasonixError("mcp-config", `${file}: a server entry has no name`);
  const url = typeof raw.url === "string" ? raw.url : undefined;
  const type = transportOf(raw.type, url !== undefined, where);
  const command = typeof raw.command === "string" ? raw.command : undefined;
  if (type === "stdio" && !command) throw new ReasonixError("mcp-config", `${where}: a stdio server needs a command`);
  if (type !== "stdio" && !url) throw new ReasonixError("mcp-config", `${where}: a ${type} server needs a url`);
  const tt: Record<string, number> = {};
  if (isTable(raw.tool_timeout_seconds)) for (const [k, v] of Object.entries(raw.tool_timeout_seconds)) if (typeof v === "number" && v > 0) tt[k] = v * 1000;
  return {
    name,
    type,
    command,
    args: strs(raw.args),
    env: strMap(raw.env),
    cwd: typeof raw.cwd === "string" ? raw.cwd : undefined,
    url,
    headers: strMap(raw.headers),
    startupTimeoutMs: seconds(raw.startup_timeout_seconds, DEFAULT_STARTUP_TIMEOUT_S),
    callTimeoutMs: seconds(raw.call_timeout_seconds, DEFAULT_CALL_TIMEOUT_S),
    toolTimeoutMs: tt,
    enabled: raw.enabled !== false && raw.disabled !== true,
    // Only the user's own config may turn the sandbox off.
    sandbox: scope === "user" ? raw.sandbox !== false : true,
    scope,
    file,
    // Credentials are the user's alone: a project file never picks them.
    ...(raw.oauth === undefined ? {} : scope === "user" ? { oauth: parseOAuth(raw.oauth, where) } : { ignored: `${where}: oauth ignored; OAuth client settings count only in the user config` }),
  };
}

/** Parse a `.mcp.json` text (`{ "mcpServers": { name: {...} } }`). */
export function parseMcpJson(text: string, file: string): McpServerSpec[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ReasonixError("mcp-config", `${file}: not valid JSON (${(e as Error).message})`);
  }
  if (!isTable(data) || !isTable(data.mcpServers)) throw new ReasonixError("mcp-config", `${file}: expected an object with "mcpServers"`);
  const out: McpServerSpec[] = [];
  for (const [name, entry] of Object.entries(data.mcpServers)) {
    if (!isTable(entry)) throw new ReasonixError("mcp-config", `${file}: mcpServers.${name} must be an object`);
    // Claude Code's JSON has no sandbox switch; one written there is ignored.
    const { sandbox: _ignored, ...rest } = entry;
    out.push(specFrom({ ...rest, name }, "mcp.json", file));
  }
  return out;
}

const tables = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isTable) : []);

/**
 * Every server the workspace declares, with precedence and trust applied.
 * `loaded` is the workspace's loadConfig result (its trust state decides
 * whether project declarations may start).
 */
export function resolveServers(loaded: LoadedConfig, workspace: string): ResolvedServers {
  const problems: string[] = [];
  const all: McpServerSpec[] = [];
  const add = (make: () => McpServerSpec[]) => {
    try {
      all.push(...make());
    } catch (e) {
      problems.push((e as Error).message);
    }
  };
  const project = loaded.files.find((f) => f.scope === "project");
  if (project && Array.isArray(project.data.plugins)) {
    // Trusted: the entries loadConfig let through (sandbox = false removed); untrusted: listed, blocked.
    const trusted = loaded.trust.trusted && !loaded.trust.ignored.some((i) => i.key === "plugins");
    const source = trusted ? loaded.values.plugins : project.data.plugins;
    for (const t of tables(source)) add(() => [{ ...specFrom(t, "project", project.path), ...(trusted ? {} : { blocked: NOT_TRUSTED }) }]);
  }
  const jsonPath = join(workspace, ".mcp.json");
  if (existsSync(jsonPath)) {
    const trusted = inputTrusted(loaded.trust, ".mcp.json");
    add(() => {
      const text = readProjectFile(jsonPath).toString("utf8");
      return parseMcpJson(text, jsonPath).map((s) => (trusted ? s : { ...s, blocked: NOT_TRUSTED }));
    });
  }
  const user = loaded.files.find((f) => f.scope === "user");
  if (user) for (const t of tables(user.data.plugins)) add(() => [specFrom(t, "user", user.path)]);

  const rank: Record<McpScope, number> = { project: 0, "mcp.json": 1, user: 2 };
  all.sort((a, b) => rank[a.scope] - rank[b.scope]);
  for (const s of all) if (s.ignored) problems.push(s.ignored);
  const byName = new Map<string, McpServerSpec>();
  const shadowed: McpServerSpec[] = [];
  for (const s of all) {
    if (byName.has(s.name)) shadowed.push(s);
    else byName.set(s.name, s);
  }
  const servers = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { servers, shadowed, problems };
}

/** `${VAR}` and `${VAR:-default}`; an unset VAR without a default is an error naming it. */
export function expandVars(text: string, env: Record<string, string | undefined>, where: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, def: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== "") return v;
    if (def !== undefined) return def;
    throw new ReasonixError("mcp-config", `${where}: \${${name}} is not set`, { hint: `export ${name}, or write \${${name}:-default}` });
  });
}

/**
 * The variables a server's `${VAR}` references may use: the environment and,
 * for a server from the user's own config, `$REASONIX_HOME/.env` (where
 * `reasonix mcp install/import` keep secrets; the environment wins). A
 * project's declaration never sees .env, which also holds Reasonix's keys.
 */
export function expansionEnv(s: Pick<McpServerSpec, "scope">, home: string, env: Record<string, string | undefined>): Record<string, string | undefined> {
  if (s.scope !== "user") return env;
  let saved: Map<string, string>;
  try {
    saved = new SecretStore(join(home, ".env")).read();
  } catch {
    return env;
  }
  return { ...Object.fromEntries(saved), ...env };
}

/** The spec with every `${VAR}` expanded (at launch time). */
export function expandSpec(s: McpServerSpec, env: Record<string, string | undefined>): McpServerSpec {
  const w = (field: string) => `${s.file}: server "${s.name}" ${field}`;
  const map = (m: Record<string, string>, field: string) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, expandVars(v, env, w(`${field}.${k}`))]));
  return {
    ...s,
    command: s.command === undefined ? undefined : expandVars(s.command, env, w("command")),
    args: s.args.map((a, i) => expandVars(a, env, w(`args[${i}]`))),
    env: map(s.env, "env"),
    cwd: s.cwd === undefined ? undefined : expandVars(s.cwd, env, w("cwd")),
    url: s.url === undefined ? undefined : expandVars(s.url, env, w("url")),
    headers: map(s.headers, "headers"),
  };
}

/**
 * A stdio server's private, writable state directory (caches, its own
 * files): per name and, for project servers, per workspace. It lives under
 * $XDG_STATE_HOME (default ~/.local/state), not under $REASONIX_HOME, which
 * the sandbox keeps out of every child's sight. It still follows the home:
 * the default home (~/.reasonix) uses `reasonix/mcp/`, any other home
 * `reasonix/homes/<hash of the home's path>/mcp/`, so two homes never share
 * a server's state and the default keeps the place it always had.
 */
export function stateDirOf(s: Pick<McpServerSpec, "name" | "scope">, workspace: string, home: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = s.scope === "user" ? "user" : sha256(workspace).slice(0, 12);
  return join(stateRootOf(home, env), "mcp", `${s.name}-${key}`);
}

/** This home's directory under $XDG_STATE_HOME/reasonix (see stateDirOf). */
export function stateRootOf(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith("/") ? env.XDG_STATE_HOME : join(env.HOME || homedir(), ".local", "state");
  const own = resolve(home) === reasonixHome({ HOME: env.HOME }) ? [] : ["homes", sha256(resolve(home)).slice(0, 12)];
  return join(base, "reasonix", ...own);
}

export { UNTRUSTED };
