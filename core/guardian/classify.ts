/**
 * The cheap, deterministic pre-classifier: which calls the Guardian sees at
 * all. Reads, session bookkeeping, workspace edits (checkpointed, rewindable)
 * and bash lines made only of known read-only commands skip it; everything
 * that can change state elsewhere or reach the network goes to review. When in
 * doubt a call counts as risky (the Guardian then judges it). Bash lines are
 * judged by the shared read-only classifier (core/permissions/readonly-bash.ts).
 */
import { isAbsolute, resolve, sep } from "node:path";
import { analyzeBash } from "../permissions/bash.ts";
import { classifyReadOnlyCommand } from "../permissions/readonly-bash.ts";
import { expandTilde } from "../home.ts";
import { isWithin, resolveReal, type PathPolicy } from "../policy/paths.ts";
import type { ToolDefinition } from "../tools/types.ts";

export interface ClassifyContext {
  workspace: string;
  pathPolicy?: PathPolicy;
}

/** "outside" the workspace, "git" (its .git directory), or null for ordinary workspace content. */
function whereWrites(p: string, ctx: ClassifyContext): "outside" | "git" | null {
  const expanded = expandTilde(p);
  const abs = isAbsolute(expanded) ? expanded : resolve(ctx.workspace, expanded);
  let real: string;
  try {
    real = ctx.pathPolicy ? ctx.pathPolicy.resolve(abs) : resolveReal(abs);
  } catch {
    return "outside";
  }
  if (!isWithin(real, ctx.workspace)) return "outside";
  // The repository's own machinery (hooks, config) is not ordinary workspace content.
  return real === `${ctx.workspace}${sep}.git` || real.startsWith(`${ctx.workspace}${sep}.git${sep}`) ? "git" : null;
}

/** Why this call needs the Guardian, or null when it skips it. */
export function riskyBecause(tool: ToolDefinition, input: unknown, ctx: ClassifyContext): string | null {
  switch (tool.kind) {
    case "read":
    case "meta":
      return null;
    case "network":
      return "it reaches the network";
    case "external":
      return "it runs on an MCP server and may change state there";
    case "bash": {
      const command = typeof (input as { command?: unknown })?.command === "string" ? (input as { command: string }).command : "";
      const ro = classifyReadOnlyCommand(command);
      if (!ro.ok) return `a shell command that may change state (${ro.reason})`;
      // `./ls` is whatever the workspace put there, not the system's ls.
      const local = analyzeBash(command).commands.find((c) => (c.argv[0] ?? "").includes("/") && !/^\/(usr\/)?bin\/[^/]+$/.test(c.argv[0]!));
      return local ? `a shell command that may change state (it runs ${local.argv[0]}, a program given by path)` : null;
    }
    case "write": {
      let paths: string[] = [];
      try {
        paths = tool.paths?.(input) ?? [];
      } catch {
        return "a write whose target paths cannot be determined";
      }
      if (!tool.paths) return "a write whose target paths cannot be determined";
      const where = paths.map((p) => [p, typeof p === "string" ? whereWrites(p, ctx) : "outside"] as const);
      const outside = where.filter(([, w]) => w === "outside").map(([p]) => p);
      if (outside.length) return `it writes outside the workspace (${outside.join(", ")})`;
      return where.some(([, w]) => w === "git") ? "it writes into the repository's .git directory" : null;
    }
    default:
      return "a tool of an unknown kind";
  }
}
