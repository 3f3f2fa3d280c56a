/**
 * What the web UI's settings panel shows (GET /api/settings): the user's
 * providers (a key only ever as "set" or "not set"), the permission rules of
 * the user config and of the project file with the file each lives in, the
 * default mode and effort, the MCP servers with their live status, and the
 * theme. Read from the same files and with the same loaders as the CLI.
 */
import { existsSync } from "node:fs";
import { loadConfig, projectConfigPath, readConfigFile, type ConfigTable } from "../config/load.ts";
import { homePaths } from "../home.ts";
import { savedTheme } from "../config/theme.ts";
import { serverRows } from "../mcp/report.ts";
import type { McpServerStatus } from "../protocol/mcp.ts";
import { providerStatuses, type ProviderStatus } from "../setup/providers.ts";
import { trustReport } from "../trust/report.ts";

export const RULE_KINDS = ["allow", "ask", "deny"] as const;
export type RuleKind = (typeof RULE_KINDS)[number];
export const THEMES = ["auto", "light", "dark"] as const;

export interface RuleRow {
  rule: string;
  kind: RuleKind;
  scope: "user" | "project";
  file: string;
  /** False for a project `allow` rule while the workspace is not trusted (ask and deny only tighten: always in effect). */
  inEffect: boolean;
}

export interface McpRow {
  name: string;
  type: string;
  scope: string;
  file: string;
  target: string;
  enabled: boolean;
  /** "disabled", "blocked", or the running engine's status ("ready", "starting", "failed"…); "configured" before it starts. */
  status: string;
  error?: string;
  tools: number;
  /** enable/disable is possible here ([[plugins]] in a file this panel may edit). */
  editable: boolean;
  /** An http/sse server: OAuth sign-in may apply. */
  remote: boolean;
  signIn?: { state: "waiting" | "done" | "failed"; message?: string };
}

export interface SettingsView {
  userConfig: string;
  projectConfig: string;
  dotenv: string;
  /** Every present project input is approved: project rules may be written. */
  trusted: boolean;
  /** Provider keys and MCP sign-in may be set from this browser (loopback listener). */
  secretsAllowed: boolean;
  providers: ProviderStatus[];
  rules: RuleRow[];
  mode: string;
  modeFile: string;
  theme: string;
  /** `[ui] theme_style`: the accent palette. */
  themeStyle: string;
  mcp: McpRow[];
  mcpProblems: string[];
}

const list = (t: ConfigTable | undefined, kind: RuleKind): string[] => {
  const v = (t?.permissions as ConfigTable | undefined)?.[kind];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
};

export interface ViewContext {
  home: string;
  workspace: string;
  secretsAllowed: boolean;
  live: McpServerStatus[];
  signIns: Map<string, NonNullable<McpRow["signIn"]>>;
}

export function isTrusted(workspace: string, home: string): boolean {
  return trustReport(workspace, home).trusted;
}

/** The saved theme mode (`[ui] theme`, else the older `[web] theme`), "auto" when unset or unreadable. */
export function userTheme(home: string): string {
  return savedTheme(home).mode;
}

export function settingsView(c: ViewContext): SettingsView {
  const paths = homePaths(c.home);
  const projectFile = projectConfigPath(c.workspace);
  const user = readConfigFile(paths.config, "user", [])?.data;
  const project = existsSync(projectFile) ? readConfigFile(projectFile, "project", [])?.data : undefined;
  const trusted = isTrusted(c.workspace, c.home);
  const rules: RuleRow[] = [];
  for (const kind of RULE_KINDS) {
    for (const rule of list(user, kind)) rules.push({ rule, kind, scope: "user", file: paths.config, inEffect: true });
    for (const rule of list(project, kind)) rules.push({ rule, kind, scope: "project", file: projectFile, inEffect: kind !== "allow" || trusted });
  }
  const loaded = loadConfig({ cwd: c.workspace, home: c.home });
  const { rows, problems } = serverRows(loaded, c.workspace);
  const mcp = rows.map((r): McpRow => {
    const live = c.live.find((l) => l.name === r.name);
    const status = r.state !== "configured" ? r.state : live?.status ?? "configured";
    const sign = c.signIns.get(r.name);
    return {
      name: r.name, type: r.type, scope: r.scope, file: r.file, target: r.target, enabled: r.enabled, status,
      ...(r.reason ? { error: r.reason } : live?.error ? { error: live.error } : {}),
      tools: live?.tools.length ?? 0,
      editable: r.scope !== "mcp.json",
      remote: r.type !== "stdio",
      ...(sign ? { signIn: sign } : {}),
    };
  });
  return {
    userConfig: paths.config,
    projectConfig: projectFile,
    dotenv: paths.dotenv,
    trusted,
    secretsAllowed: c.secretsAllowed,
    providers: providerStatuses(c.home).providers,
    rules,
    mode: String(loaded.values.permissions && (loaded.values.permissions as ConfigTable).mode),
    modeFile: loaded.sources.get("permissions.mode") ?? "default",
    theme: userTheme(c.home),
    themeStyle: savedTheme(c.home).style,
    mcp,
    mcpProblems: problems,
  };
}
