import type { ToolDefinition } from "../tools/types.ts";
import type { PermissionMode } from "./types.ts";

export interface PermissionDecision {
  action: "allow" | "ask" | "deny";
  reason: string;
  suggestedRule: string;
}

/** What the loop needs from the permission policy (core/permissions implements it). */
export interface PermissionGate {
  check(tool: ToolDefinition, input: unknown): PermissionDecision;
  grant(rule: string, scope: "session" | "persist"): void;
}

export interface GateOptions {
  mode: PermissionMode;
  allow: string[];
  ask: string[];
  deny: string[];
  headless: boolean;
  projectConfigPath?: string;
}

const toolRule = (tool: ToolDefinition, input: unknown): string => {
  const summary = (() => {
    try {
      return tool.summarize(input);
    } catch {
      return "";
    }
  })();
  if (tool.kind === "bash") return `Bash(${String((input as { command?: string })?.command ?? summary)})`;
  return tool.name;
};

/**
 * Mode-only policy, used when core/permissions is not available (it owns rule
 * matching and bash parsing). Reads always pass; writers follow the mode.
 */
export class ModeOnlyGate implements PermissionGate {
  private readonly granted = new Set<string>();
  constructor(private readonly opts: GateOptions) {}
  check(tool: ToolDefinition, input: unknown): PermissionDecision {
    const rule = toolRule(tool, input);
    if (this.opts.deny.includes(rule) || this.opts.deny.includes(tool.name)) return { action: "deny", reason: `denied by rule ${rule}`, suggestedRule: rule };
    if (tool.kind === "read" || tool.kind === "meta") return { action: "allow", reason: "read-only tool", suggestedRule: rule };
    if (this.granted.has(rule) || this.opts.allow.includes(rule) || this.opts.allow.includes(tool.name)) return { action: "allow", reason: "allowed by rule", suggestedRule: rule };
    switch (this.opts.mode) {
      case "yolo":
      case "auto":
        return { action: "allow", reason: `${this.opts.mode} mode`, suggestedRule: rule };
      case "read-only":
        return { action: "deny", reason: "read-only mode blocks writers", suggestedRule: rule };
      case "plan":
        return { action: "deny", reason: "plan mode: writers wait until the plan is approved", suggestedRule: rule };
      default:
        return { action: "ask", reason: "ask mode: writers need approval", suggestedRule: rule };
    }
  }
  grant(rule: string): void {
    this.granted.add(rule);
  }
}

/** The real policy from core/permissions when present, else the mode-only gate. */
export async function loadPermissionGate(opts: GateOptions): Promise<PermissionGate> {
  try {
    const mod = (await import("../permissions/index.ts")) as { Permissions?: new (o: GateOptions) => PermissionGate };
    if (mod.Permissions) return new mod.Permissions(opts);
  } catch {}
  return new ModeOnlyGate(opts);
}
