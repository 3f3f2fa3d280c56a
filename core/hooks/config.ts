/**
 * Hook definitions: `[[hooks]]` in the user's config.toml (and in a trusted
 * project's reasonix.toml — the config loader drops them otherwise), plus
 * `.reasonix/hooks.toml` in the workspace, which loads only when
 * `reasonix trust` approved its exact content.
 */
import { join } from "node:path";
import { parse } from "smol-toml";
import { errorMessage } from "../errors.ts";
import { inputTrusted, type TrustState } from "../trust/index.ts";
import { readProjectFile, sha256 } from "../trust/inputs.ts";
import { UNTRUSTED } from "../trust/policy.ts";

export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd", "PreCompact"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
export const DEFAULT_TIMEOUT_S = 60;
export const PROJECT_HOOKS_FILE = ".reasonix/hooks.toml";

export interface HookDef {
  event: HookEvent;
  /** Tool-name pattern (PreToolUse/PostToolUse): a regex matched whole, case-insensitive; empty or `*` = every tool. */
  matcher?: string;
  command: string;
  timeoutSeconds: number;
  /** Where it was defined, for messages. */
  source: string;
  scope: "user" | "project";
  /** Listed but never run, and why. */
  notLoaded?: string;
}

/** `[[hooks]]` tables as definitions (also how the trust report lists a project's hooks). */
export function fromTables(list: unknown, source: string, scope: HookDef["scope"]): HookDef[] {
  if (!Array.isArray(list)) return [];
  return list.map((raw, i) => {
    const t = (raw ?? {}) as Record<string, unknown>;
    const where = `${source}: hooks[${i}]`;
    const base = { event: t.event as HookEvent, command: String(t.command ?? ""), timeoutSeconds: DEFAULT_TIMEOUT_S, source: where, scope };
    if (!HOOK_EVENTS.includes(t.event as HookEvent)) return { ...base, notLoaded: `not loaded: event must be one of ${HOOK_EVENTS.join(", ")}` };
    if (typeof t.command !== "string" || !t.command.trim()) return { ...base, notLoaded: "not loaded: command is missing" };
    const timeout = t.timeout_seconds === undefined ? DEFAULT_TIMEOUT_S : Number(t.timeout_seconds);
    if (!Number.isFinite(timeout) || timeout <= 0) return { ...base, notLoaded: "not loaded: timeout_seconds must be a positive number" };
    return { ...base, timeoutSeconds: timeout, ...(typeof t.matcher === "string" ? { matcher: t.matcher } : {}) };
  });
}

export interface HookSources {
  workspace: string;
  /** Effective config values (user config, plus a trusted project file's hooks). */
  values: Record<string, unknown>;
  /** Where `hooks` came from (LoadedConfig.sources), for messages. */
  configSource?: string;
  trust: TrustState;
}

/** Every hook, loaded or not (see `notLoaded`). */
export function loadHooks(o: HookSources): HookDef[] {
  const defs = fromTables(o.values.hooks, o.configSource ?? "config", "user");
  const file = join(o.workspace, ...PROJECT_HOOKS_FILE.split("/"));
  let data: Buffer;
  try {
    data = readProjectFile(file);
  } catch (e) {
    // Absent: no project hooks. A FIFO, device or oversized file stops the load (readProjectFile).
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return defs;
    throw e;
  }
  const trusted = inputTrusted(o.trust, PROJECT_HOOKS_FILE, { rel: PROJECT_HOOKS_FILE, sha256: sha256(data), bytes: data.length });
  let parsed: Record<string, unknown>;
  try {
    parsed = parse(data.toString("utf8")) as Record<string, unknown>;
  } catch (e) {
    return [...defs, { event: "PreToolUse", command: "", timeoutSeconds: 0, source: file, scope: "project", notLoaded: `not loaded: ${errorMessage(e)}` }];
  }
  const project = fromTables(parsed.hooks, file, "project");
  return [...defs, ...project.map((d) => (trusted || d.notLoaded ? d : { ...d, notLoaded: `not loaded: ${UNTRUSTED}` }))];
}

/** Does a hook with this matcher apply to `tool`? */
export function matches(matcher: string | undefined, tool: string | undefined): boolean {
  const m = (matcher ?? "").trim();
  if (m === "" || m === "*") return true;
  if (tool === undefined) return false;
  try {
    return new RegExp(`^(?:${m})$`, "i").test(tool);
  } catch {
    return m.toLowerCase() === tool.toLowerCase();
  }
}
