/**
 * The commands, skills and hooks part of `reasonix doctor capabilities`:
 * what `/` reaches, what lost its name to what (and how to still reach it),
 * what is listed but not loaded and why, and which hooks would run.
 */
import { loadHooks, type HookDef } from "../hooks/config.ts";
import { trustState } from "../trust/index.ts";
import { workspaceCommands } from "./index.ts";
import type { CommandEntry } from "./types.ts";

export interface CommandRow {
  name: string;
  kind: CommandEntry["kind"];
  scope: CommandEntry["scope"];
  source: string;
  description: string;
  argumentHint?: string;
  /** Skills: how they run. */
  invocation?: "auto" | "manual";
  runAs?: "inline" | "subagent";
}

export interface CapabilitiesReport {
  commands: CommandRow[];
  shadowed: { name: string; scope: string; source: string; by: string; byScope: string; reachableAs?: string }[];
  notLoaded: { name: string; kind: string; scope: string; source: string; reason: string }[];
  hooks: { event: string; matcher?: string; command: string; timeoutSeconds: number; scope: string; source: string; loaded: boolean; reason?: string }[];
}

const row = (e: CommandEntry): CommandRow => ({
  name: e.name,
  kind: e.kind,
  scope: e.scope,
  source: e.source,
  description: e.description,
  ...(e.argumentHint ? { argumentHint: e.argumentHint } : {}),
  ...(e.skill ? { invocation: e.skill.invocation, runAs: e.skill.runAs } : {}),
});

export function capabilitiesReport(o: { workspace: string; home: string; values: Record<string, unknown>; sources?: Map<string, string>; trustProject?: boolean }): CapabilitiesReport {
  const trust = trustState(o.workspace, o.values, !!o.trustProject);
  const cat = workspaceCommands({ workspace: o.workspace, home: o.home, values: o.values, trust }).catalog();
  const hooks: HookDef[] = loadHooks({ workspace: o.workspace, values: o.values, configSource: o.sources?.get("hooks"), trust });
  return {
    commands: cat.entries.map(row),
    shadowed: cat.shadowed.map((s) => ({ name: s.entry.name, scope: s.entry.scope, source: s.entry.source, by: s.by.source, byScope: s.by.scope, ...(s.reachableAs ? { reachableAs: s.reachableAs } : {}) })),
    notLoaded: cat.notLoaded.map((e) => ({ name: e.name, kind: e.kind, scope: e.scope, source: e.source, reason: e.notLoaded ?? "" })),
    hooks: hooks.map((h) => ({
      event: h.event,
      ...(h.matcher ? { matcher: h.matcher } : {}),
      command: h.command,
      timeoutSeconds: h.timeoutSeconds,
      scope: h.scope,
      source: h.source,
      loaded: !h.notLoaded,
      ...(h.notLoaded ? { reason: h.notLoaded } : {}),
    })),
  };
}
