/**
 * Where other agents keep their MCP servers, and how each file says it:
 *
 * - Claude Code: `~/.claude.json` `mcpServers` and `projects.<path>.mcpServers`;
 *   a project's `.mcp.json` `mcpServers` (type stdio|http|sse, command, args,
 *   env, url, headers).
 * - Claude Desktop: `claude_desktop_config.json` `mcpServers` (command, args, env).
 * - Cursor: `~/.cursor/mcp.json` `mcpServers` (command/args/env, or url/headers).
 * - VS Code: `.vscode/mcp.json` `servers`, the user `mcp.json` `servers` and
 *   user `settings.json` `mcp.servers` (JSON with comments; `${env:VAR}`,
 *   `${input:id}`, `${workspaceFolder}`).
 * - Codex: `~/.codex/config.toml` `[mcp_servers.<name>]` (command, args, env,
 *   cwd; url, bearer_token_env_var, http_headers, env_http_headers).
 * - Gemini CLI: `~/.gemini/settings.json` `mcpServers` (command/args/env/cwd,
 *   url = SSE, httpUrl = Streamable HTTP, headers).
 * - Windsurf: `~/.codeium/windsurf/mcp_config.json` `mcpServers`
 *   (command/args/env, or serverUrl/url with headers).
 *
 * Reading is all this does: the files are other programs' input (a project's
 * `.mcp.json` or `.vscode/mcp.json` someone else wrote), and nothing found
 * here takes effect until the user picks it and it is written to the user
 * config.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import type { McpServerSpec } from "../config.ts";

/** A server as another agent declares it, in Reasonix's terms. */
export interface FoundServer extends Pick<McpServerSpec, "name" | "type" | "command" | "args" | "env" | "cwd" | "url" | "headers"> {
  agent: string;
  file: string;
  /** Set when it cannot be imported as it is, with why. */
  unsupported?: string;
  /** Found in the workspace (someone else's input): imported only when the user names or picks it. */
  project?: boolean;
}

export interface AgentFile {
  agent: string;
  file: string;
  /** The file's parsed content -> its servers. */
  read: (data: unknown, file: string) => FoundServer[];
  format: "json" | "jsonc" | "toml";
  /** A file of the workspace, not of the user. */
  project?: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const strMap = (v: unknown): Record<string, string> => (isObj(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string")) : {});
const optStr = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/** Claude Code / Desktop / Cursor / Windsurf / Gemini style: `{ name: { command | url | … } }`. */
function fromMap(map: unknown, agent: string, file: string): FoundServer[] {
  if (!isObj(map)) return [];
  const out: FoundServer[] = [];
  for (const [name, v] of Object.entries(map)) {
    if (!isObj(v)) continue;
    const declared = optStr(v.type);
    // Gemini: httpUrl is Streamable HTTP, url is SSE; Windsurf: serverUrl.
    const httpUrl = optStr(v.httpUrl) ?? optStr(v.serverUrl);
    const url = httpUrl ?? optStr(v.url);
    const s: FoundServer = { name, type: "stdio", args: strs(v.args), env: strMap(v.env), headers: strMap(v.headers), agent, file };
    if (optStr(v.command)) {
      s.command = v.command as string;
      s.cwd = optStr(v.cwd);
    } else if (url) {
      s.url = url;
      s.type = declared === "sse" || (agent === "Gemini CLI" && !httpUrl) ? "sse" : "http";
    } else s.unsupported = "it has neither a command nor a URL";
    if (declared && !["stdio", "http", "sse", "streamable-http", "streamableHttp"].includes(declared)) s.unsupported = `transport "${declared}" is not supported`;
    if (v.disabled === true || v.enabled === false) s.unsupported = "it is disabled there";
    out.push(s);
  }
  return out;
}

function claudeJson(data: unknown, file: string): FoundServer[] {
  if (!isObj(data)) return [];
  const out = fromMap(data.mcpServers, "Claude Code", file);
  if (isObj(data.projects))
    for (const [path, p] of Object.entries(data.projects)) if (isObj(p)) out.push(...fromMap(p.mcpServers, "Claude Code", `${file} (project ${path})`));
  return out;
}

function codexToml(data: unknown, file: string): FoundServer[] {
  if (!isObj(data) || !isObj(data.mcp_servers)) return [];
  const out: FoundServer[] = [];
  for (const [name, v] of Object.entries(data.mcp_servers)) {
    if (!isObj(v)) continue;
    const s: FoundServer = { name, type: "stdio", args: strs(v.args), env: strMap(v.env), headers: strMap(v.http_headers), agent: "Codex", file, cwd: optStr(v.cwd) };
    if (optStr(v.command)) s.command = v.command as string;
    else if (optStr(v.url)) {
      s.type = "http";
      s.url = v.url as string;
      const bearer = optStr(v.bearer_token_env_var);
      if (bearer) s.headers.Authorization = `Bearer \${${bearer}}`;
      for (const [h, envName] of Object.entries(strMap(v.env_http_headers))) s.headers[h] = `\${${envName}}`;
    } else s.unsupported = "it has neither a command nor a url";
    if (v.enabled === false) s.unsupported = "it is disabled there";
    out.push(s);
  }
  return out;
}

const vscode = (pick: (d: Obj) => unknown) => (data: unknown, file: string) => (isObj(data) ? fromMap(pick(data), "VS Code", file) : []);
const mapOf = (agent: string, key = "mcpServers") => (data: unknown, file: string) => (isObj(data) ? fromMap(data[key], agent, file) : []);

/** Per-OS application-data folders (Claude Desktop, VS Code). */
function appDirs(home: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (platform === "darwin") return join(home, "Library", "Application Support");
  if (platform === "win32") return env.APPDATA ?? join(home, "AppData", "Roaming");
  return env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith("/") ? env.XDG_CONFIG_HOME : join(home, ".config");
}

/** The files to look at, for HOME and the workspace CWD. */
export function agentFiles(home: string, cwd: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): AgentFile[] {
  const app = appDirs(home, env, platform);
  const codexHome = env.CODEX_HOME && env.CODEX_HOME.startsWith("/") ? env.CODEX_HOME : join(home, ".codex");
  return [
    { agent: "Claude Code", file: join(home, ".claude.json"), read: claudeJson, format: "json" },
    { agent: "Claude Code", file: join(cwd, ".mcp.json"), read: mapOf("Claude Code"), format: "json", project: true },
    { agent: "Claude Desktop", file: join(app, "Claude", "claude_desktop_config.json"), read: mapOf("Claude Desktop"), format: "json" },
    { agent: "Cursor", file: join(home, ".cursor", "mcp.json"), read: mapOf("Cursor"), format: "json" },
    { agent: "Cursor", file: join(cwd, ".cursor", "mcp.json"), read: mapOf("Cursor"), format: "json", project: true },
    { agent: "VS Code", file: join(cwd, ".vscode", "mcp.json"), read: vscode((d) => d.servers), format: "jsonc", project: true },
    { agent: "VS Code", file: join(app, "Code", "User", "mcp.json"), read: vscode((d) => d.servers), format: "jsonc" },
    { agent: "VS Code", file: join(app, "Code", "User", "settings.json"), read: vscode((d) => (isObj(d.mcp) ? d.mcp.servers : undefined)), format: "jsonc" },
    { agent: "Codex", file: join(codexHome, "config.toml"), read: codexToml, format: "toml" },
    { agent: "Gemini CLI", file: join(home, ".gemini", "settings.json"), read: mapOf("Gemini CLI"), format: "jsonc" },
    { agent: "Windsurf", file: join(home, ".codeium", "windsurf", "mcp_config.json"), read: mapOf("Windsurf"), format: "jsonc" },
  ];
}

/** Every server the agents' files declare, and the files that could not be read. */
export function findServers(files: AgentFile[]): { servers: FoundServer[]; problems: string[] } {
  const servers: FoundServer[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.file) || !existsSync(f.file)) continue;
    seen.add(f.file);
    let data: unknown;
    try {
      const text = readFileSync(f.file, "utf8");
      data = f.format === "toml" ? parseToml(text) : f.format === "jsonc" ? Bun.JSONC.parse(text) : JSON.parse(text);
    } catch (e) {
      problems.push(`${f.file} (${f.agent}) cannot be read: ${(e as Error).message}`);
      continue;
    }
    servers.push(...f.read(data, f.file).map((s) => (f.project ? { ...s, project: true } : s)));
  }
  return { servers, problems };
}
