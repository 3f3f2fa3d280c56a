/**
 * The settings panel's writes, each through the editor the CLI uses for the
 * same change: `reasonix setup add/default/effort/key` (core/setup),
 * `reasonix config set` (permissions.mode, ui.theme), the approval's
 * "allow always" (core/permissions/persist.ts), `reasonix mcp enable/disable`.
 * Every editor re-parses what it would write and replaces the file atomically;
 * the key file stays 0600. A refused edit is an ApiError whose sentence names
 * the form field, never a command-line flag.
 */
import { saveTheme } from "../config/theme.ts";
import type { ThemeMode, ThemeStyle } from "../protocol/theme.ts";
import { readFileSync } from "node:fs";
import { setConfigValue } from "../config/edit.ts";
import { projectConfigPath } from "../config/load.ts";
import { ReasonixError } from "../errors.ts";
import { homePaths } from "../home.ts";
import { setServerEnabled } from "../mcp/edit.ts";
import { persistRule, removeRule } from "../permissions/persist.ts";
import { parseRule } from "../permissions/rules.ts";
import { testConnection } from "../setup/connection.ts";
import { setDefaultProvider, setProviderEffort, storeKey, userProviders } from "../setup/providers.ts";
import { reapproveOwnEdit } from "../trust/report.ts";
import { ApiError } from "./api-error.ts";
import { isTrusted, type RuleKind } from "./settings-view.ts";

/** Command-line words in an editor's message, and the form field each stands for. */
const FIELDS: [RegExp, string, string][] = [
  // An editor may already speak the form's words (core/setup checkEntry's "form" wording).
  [/--base-url(?: URL)?|\bBase URL\b/g, "baseUrl", "Base URL"],
  [/--model(?: M)?|\bModel\b/g, "model", "Model"],
  [/--kind|\bProtocol\b/g, "kind", "Protocol"],
  [/--key-env(?: VAR)?/g, "keyEnv", "Key variable"],
  [/--preset(?: P)?/g, "preset", "Provider"],
  [/provider name(?= ")/g, "name", "Name"],
  [/^effort/g, "effort", "Effort"],
];

/** An editor's refusal in web wording: the field it concerns (for the form) and a sentence without flags. */
export function webError(e: unknown): unknown {
  if (!(e instanceof ReasonixError) || e instanceof ApiError) return e;
  let message = e.message;
  let field: string | undefined;
  for (const [re, f, label] of FIELDS) {
    if (re.test(message)) field ??= f;
    re.lastIndex = 0;
    message = message.replace(re, label);
  }
  message = message.replace(/(?:^|; )(?:run|use|see):? `?reasonix [^;]*`?/g, "").replace(/\breasonix setup remove \S+/g, "removing it first");
  return new FieldError(field, message.charAt(0).toUpperCase() + message.slice(1));
}

export class FieldError extends ApiError {
  constructor(readonly field: string | undefined, message: string) {
    super(400, "invalid", message);
  }
}

export function checkRule(rule: string): string {
  try {
    return parseRule(rule).source;
  } catch (e) {
    throw new FieldError("rule", `${(e as Error).message}${e instanceof ReasonixError && e.hint ? ` (${e.hint})` : ""}`.replace(/^invalid/, "Invalid"));
  }
}

/** A project file write needs a trusted workspace; the write keeps the approval in step with it. */
function projectWrite(workspace: string, home: string, write: () => { before: string | undefined; after: string } | undefined): void {
  if (!isTrusted(workspace, home)) {
    throw new ApiError(403, "untrusted", "the project's files are not trusted here: review and trust the workspace first; until then only your user config can be edited");
  }
  const edit = write();
  if (edit) reapproveOwnEdit(workspace, edit.before, edit.after, home);
}

export interface WriteContext {
  home: string;
  workspace: string;
}

export const settingsWrites = ({ home, workspace }: WriteContext) => ({
  rule(op: "add" | "remove", scope: "user" | "project", kind: RuleKind, raw: string): string {
    const rule = checkRule(raw);
    const run = (path: string) => (op === "add" ? persistRule(path, rule, kind) : removeRule(path, rule, kind));
    if (scope === "user") run(homePaths(home).config);
    else projectWrite(workspace, home, () => run(projectConfigPath(workspace)));
    return rule;
  },

  mode(mode: string): void {
    setConfigValue(homePaths(home).config, "permissions.mode", mode);
  },

  /** `[ui] theme` / `[ui] theme_style`: the one setting the chat's /theme saves too. */
  theme(theme: { mode: ThemeMode } | { style: ThemeStyle }): void {
    saveTheme(home, theme);
  },

  setDefault(name: string): void {
    setDefaultProvider(name, home);
  },

  effort(name: string, effort: string): void {
    setProviderEffort(name, effort === "default" ? undefined : effort, home);
  },

  key(name: string, key: string): string {
    const entry = userProviders(home).providers.find((p) => p.name === name);
    if (!entry) throw new FieldError("name", `No provider named "${name}" in ${homePaths(home).config}`);
    if (!entry.api_key_env) throw new FieldError("key", `Provider "${name}" is used without a key (its entry has no api_key_env)`);
    storeKey(entry.api_key_env, key, home);
    return entry.api_key_env;
  },

  async test(name: string) {
    const entry = userProviders(home).providers.find((p) => p.name === name);
    if (!entry) throw new FieldError("name", `No provider named "${name}" in ${homePaths(home).config}`);
    return testConnection(entry, { home });
  },

  mcpEnabled(row: { name: string; scope: string; file: string }, enabled: boolean): void {
    if (row.scope === "mcp.json") throw new ApiError(400, "not_editable", `"${row.name}" is declared in ${row.file}; enable or disable it there`);
    if (row.scope === "user") return setServerEnabled(row.name, enabled, row.file);
    projectWrite(workspace, home, () => {
      const before = readFileSync(row.file, "utf8");
      setServerEnabled(row.name, enabled, row.file);
      return { before, after: readFileSync(row.file, "utf8") };
    });
  },
});
