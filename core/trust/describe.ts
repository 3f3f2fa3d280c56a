// What each project input can do once approved, described from the very bytes
// whose digest the trust question shows: hooks (which events, which commands,
// and that a PreToolUse hook can approve tool calls), MCP servers that start
// (full command line or URL), custom commands and skills. Plain data, so the
// CLI, the chat and the browser render the same description.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { fmList, fmString, parseFrontMatter } from "../commands/frontmatter.ts";
import { commandName } from "../commands/custom.ts";
import { errorMessage } from "../errors.ts";
import { InputRefused, readRegularFile } from "../fs/bounded-read.ts";
import { fromTables, PROJECT_HOOKS_FILE } from "../hooks/config.ts";
import { isTable } from "../config/validate.ts";
import { parseMcpJson, specFrom, type McpServerSpec } from "../mcp/config.ts";
import type { IgnoredSetting } from "./policy.ts";
import { LINK_DIGEST_PREFIX, sha256 } from "./inputs.ts";

export type InputKind = "settings" | "hooks" | "mcp" | "command" | "skill" | "other";

export interface InputDescription {
  kind: InputKind;
  /** One sentence: what approving this file lets it do. */
  can: string;
  /** The concrete things it adds, one line each (a hook's event and command, a server's command line). */
  items: string[];
  /** Why the file could not be described (it still needs approval; what would load is not shown). */
  problem?: string;
}

/** Largest file read to describe it; a bigger one is listed with a problem. */
export const MAX_DESCRIBED_BYTES = 1024 * 1024;

// C0/C1 controls, line/paragraph separators and bidi overrides: shown as \uXXXX, never sent to a terminal or page raw.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
export const visible = (s: string): string => s.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

const COMMANDS_DIR = ".reasonix/commands/";
const SKILL_DIRS = [".reasonix/skills/", ".agents/skills/"];

export function kindOf(rel: string): InputKind {
  if (rel === "reasonix.toml") return "settings";
  if (rel === ".mcp.json") return "mcp";
  if (rel === PROJECT_HOOKS_FILE) return "hooks";
  if (rel.startsWith(COMMANDS_DIR) && rel.toLowerCase().endsWith(".md")) return "command";
  if (SKILL_DIRS.some((d) => rel.startsWith(d)) && rel.endsWith("/SKILL.md")) return "skill";
  return "other";
}

/** Does describing `rel` depend on its content (so it must be read and its digest checked)? */
export const needsContent = (rel: string): boolean => !["settings", "other"].includes(kindOf(rel));

/**
 * Read an input to describe it, without following it into a FIFO or device:
 * opened non-blocking, refused unless it is a regular file, read up to the
 * cap. `sha256` is computed like hashInput (a symlink's digest covers the
 * link too), so it can be compared with the digest the report shows.
 */
export function readForDescription(workspace: string, rel: string): { data: Buffer; sha256: string } | { problem: string } {
  const abs = join(workspace, ...rel.split("/"));
  try {
    const link = lstatSync(abs).isSymbolicLink();
    const data = readRegularFile(abs, MAX_DESCRIBED_BYTES, "a file the trust question shows");
    return { data, sha256: sha256(link ? Buffer.concat([LINK_DIGEST_PREFIX, data]) : data) };
  } catch (e) {
    return { problem: e instanceof InputRefused ? e.reason : `cannot be read: ${errorMessage(e)}` };
  }
}

const CAN: Record<InputKind, string> = {
  settings: "settings: may loosen only what is listed here",
  hooks: "hooks: run these shell commands on this machine at agent events (in the bash sandbox, like the bash tool)",
  mcp: "MCP servers: start with every session (local ones as programs on this machine, in the sandbox) and give the agent their tools",
  command: "custom command: a prompt the session sends when you type it",
  skill: "skill: instructions the model may load and follow",
  other: "a file the project's commands, skills or agents may refer to",
};
const PRE_TOOL_CAN = "; a PreToolUse hook can approve tool calls without asking you, or block them";

type HookLike = { event: string; matcher?: string; command: string; notLoaded?: string };
const hookLine = (d: HookLike): string => {
  const m = (d.matcher ?? "").trim();
  const scope = d.event === "PreToolUse" || d.event === "PostToolUse" ? (m === "" || m === "*" ? " (every tool)" : ` (tools matching ${JSON.stringify(m)})`) : "";
  return `${d.event}${scope}: ${d.command}${d.notLoaded ? `  [${d.notLoaded}]` : ""}`;
};
const approves = (defs: HookLike[]) => defs.some((d) => d.event === "PreToolUse" && !d.notLoaded);

function describeHooks(text: string): InputDescription {
  const parsed = parse(text) as Record<string, unknown>;
  const defs = fromTables(parsed.hooks, PROJECT_HOOKS_FILE, "project");
  return { kind: "hooks", can: `${CAN.hooks}${approves(defs) ? PRE_TOOL_CAN : ""}`, items: defs.map((d) => visible(hookLine(d))) };
}

const serverLine = (s: McpServerSpec): string => {
  const off = s.enabled ? "" : " (disabled)";
  if (s.type !== "stdio") return `${s.name}: connects to ${s.url} (${s.type})${Object.keys(s.headers).length ? `, headers ${Object.keys(s.headers).join(", ")}` : ""}${off}`;
  const extra = [...(s.cwd ? [`in ${s.cwd}`] : []), ...Object.entries(s.env).map(([k, v]) => `${k}=${v}`)];
  return `${s.name}: starts ${[s.command ?? "", ...s.args].join(" ")}${extra.length ? `  (${extra.join(", ")})` : ""}${off}`;
};

function describeMcp(text: string, rel: string): InputDescription {
  return { kind: "mcp", can: CAN.mcp, items: parseMcpJson(text, rel).map((s) => visible(serverLine(s))) };
}

/**
 * reasonix.toml: what each setting that waits for approval would do. Hooks
 * and MCP servers declared there read like those in their own files; other
 * settings as `key = value`.
 */
export function describeSettings(loosening: IgnoredSetting[]): InputDescription {
  let pre = false;
  const items = loosening.flatMap((l) => {
    const at = `  (reasonix.toml:${l.line})`;
    const tables = Array.isArray(l.value) ? l.value.filter(isTable) : [];
    try {
      if (l.key === "hooks" && tables.length) {
        const defs = fromTables(tables, "reasonix.toml", "project");
        pre ||= approves(defs);
        return defs.map((d) => `hook ${hookLine(d)}${at}`);
      }
      if (l.key === "plugins" && tables.length) return tables.map((t) => `MCP server ${serverLine(specFrom(t, "project", "reasonix.toml"))}${at}`);
    } catch {
      // An entry that would not load is still shown, as written.
    }
    return [`${l.key} = ${JSON.stringify(l.value)}${at}`];
  });
  const can = items.length ? `settings: approving lets these loosen your protections${pre ? PRE_TOOL_CAN : ""}` : "settings: loosen nothing (until approved they may only tighten yours)";
  return { kind: "settings", can, items: items.map(visible) };
}

function describeCommand(text: string, rel: string): InputDescription {
  const fm = parseFrontMatter(text, rel);
  const name = commandName(rel.slice(COMMANDS_DIR.length));
  const allowed = fmList(fm.data["allowed-tools"]);
  const model = fmString(fm.data.model);
  const items = [
    ...(allowed ? [`allowed-tools (run without asking during the command): ${allowed.join(", ")}`] : []),
    ...(model ? [`model: ${model}`] : []),
  ].map(visible);
  return { kind: "command", can: visible(`custom command /${name}: a prompt the session sends when you type it`), items };
}

function describeSkill(text: string, rel: string): InputDescription {
  const fm = parseFrontMatter(text, rel);
  const folder = rel.split("/").slice(-2, -1)[0] ?? "skill";
  const name = (fmString(fm.data.name) ?? folder).trim() || folder;
  const manual = fmString(fm.data.invocation) === "manual";
  const tools = fmList(fm.data.tools);
  const runAs = fmString((fm.data.runas ?? fm.data["run-as"]) as never);
  const model = fmString(fm.data.model);
  const items = [
    ...(fmString(fm.data.description) ? [`description: ${fmString(fm.data.description)}`] : []),
    ...(tools ? [`tools: ${tools.join(", ")}`] : []),
    ...(runAs === "subagent" ? ["runs as a subagent"] : []),
    ...(model ? [`model: ${model}`] : []),
  ].map(visible);
  const how = manual ? "instructions you can run with /" + name : "instructions the model may load and follow on its own (or you with /" + name + ")";
  return { kind: "skill", can: visible(`skill ${name}: ${how}`), items };
}

/** Describe an input from its content (`text` undefined: not read, for kinds that need none). */
export function describeInput(rel: string, text?: string): InputDescription {
  const kind = kindOf(rel);
  try {
    if (kind === "hooks") return describeHooks(text ?? "");
    if (kind === "mcp") return describeMcp(text ?? "", rel);
    if (kind === "command") return describeCommand(text ?? "", rel);
    if (kind === "skill") return describeSkill(text ?? "", rel);
  } catch (e) {
    return { kind, can: CAN[kind], items: [], problem: visible(`cannot be parsed: ${errorMessage(e)}`) };
  }
  return { kind, can: CAN[kind], items: [] };
}
