/**
 * The tool list of a child session: the parent's tools, narrowed to a
 * profile's or a task's `tools`, made strictly read-only (core/tools/readonly.ts)
 * for read-only children, and with file writers confined to the declared
 * write paths when there are any.
 */
import { isAbsolute } from "node:path";
import { getDotted } from "../config/load.ts";
import { expandTilde } from "../home.ts";
import { readOnlyTools } from "../tools/readonly.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { withinWritePaths } from "./paths.ts";
import { resolveReal } from "../policy/paths.ts";

/** Tools that start children: never inherited, the engine adds its own per depth. */
export const DELEGATION_TOOLS = new Set(["task"]);

/** Rule-style names (`Read`, `Bash(git:*)`) as tool names. */
const FAMILY: Record<string, string[]> = {
  read: ["read_file"], edit: ["edit_file", "multi_edit"], write: ["write_file"], bash: ["bash", "bash_output", "bash_kill"], webfetch: ["web_fetch"],
  grep: ["grep"], glob: ["glob"], ls: ["ls"], move: ["move_file"],
};

export function wantedNames(list: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const raw of list) {
    const base = raw.replace(/\(.*\)$/, "").trim();
    out.add(base);
    for (const n of FAMILY[base.toLowerCase()] ?? []) out.add(n);
  }
  return out;
}

function confineWriter(tool: ToolDefinition, workspace: string, writePaths: string[]): ToolDefinition {
  return {
    ...tool,
    async run(input, ctx) {
      let paths: string[] = [];
      try {
        paths = tool.paths?.(input) ?? [];
      } catch {}
      const outside = paths.find((p) => !withinWritePaths(resolveReal(isAbsolute(p) ? p : expandTilde(p), workspace), writePaths));
      if (paths.length === 0 || outside !== undefined) {
        return { ok: false, output: `Refused: this subagent may write only inside its declared write_paths; ${outside ?? "this call"} is outside them.` };
      }
      return tool.run(input, ctx);
    },
  };
}

/**
 * A confined writer's bash: the OS sandbox keeps it inside the write paths
 * (its path policy is narrowed, see childWriteScope); without the sandbox
 * nothing would, so it refuses to run.
 */
function confineBash(tool: ToolDefinition): ToolDefinition {
  return {
    ...tool,
    async run(input, ctx) {
      if (getDotted(ctx.config, "sandbox.bash") === "off") {
        return { ok: false, output: 'Refused: this subagent may write only inside its declared write_paths, which only the OS sandbox can hold a shell command to, and [sandbox] bash = "off". Fix: use the file tools, run the subagent without write_paths, or turn the sandbox on ([sandbox] bash = "enforce").' };
      }
      return tool.run(input, ctx);
    },
  };
}

export interface ChildToolOptions {
  readOnly: boolean;
  /** Names (or rule families) to keep; absent or empty: all. */
  only?: readonly string[];
  /** Normalized declared write paths; empty: writers are not confined beyond the session's own policy. */
  writePaths: string[];
  workspace: string;
}

export function childTools(all: readonly ToolDefinition[], o: ChildToolOptions): ToolDefinition[] {
  let list = all.filter((t) => !DELEGATION_TOOLS.has(t.name));
  if (o.only && o.only.length > 0) {
    const want = wantedNames(o.only);
    list = list.filter((t) => want.has(t.name));
  }
  if (o.readOnly) return readOnlyTools(list);
  if (o.writePaths.length > 0) list = list.map((t) => (t.kind === "write" ? confineWriter(t, o.workspace, o.writePaths) : t.kind === "bash" ? confineBash(t) : t));
  return list;
}
