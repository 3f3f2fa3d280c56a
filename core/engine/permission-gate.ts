import type { PathPolicy } from "../policy/paths.ts";
import { Permissions } from "../permissions/index.ts";
import type { PersistedEdit } from "../permissions/persist.ts";
import type { ToolDefinition } from "../tools/types.ts";
import type { PermissionMode, PersistTargets } from "./types.ts";

import type { PermissionDecision } from "../protocol/modes.ts";
export type { PermissionDecision } from "../protocol/modes.ts";

/** What the loop needs from the permission policy (core/permissions implements it). */
export interface PermissionGate {
  check(tool: ToolDefinition, input: unknown): PermissionDecision;
  grant(rule: string, scope: "session" | "persist" | "persist_project"): void;
  /** Where each "allow always" choice would save RULE. */
  persistTargets?(rule: string): PersistTargets | undefined;
  setMode?(mode: PermissionMode): void;
  /** The mode in force now (it changes with setMode). */
  readonly mode?: PermissionMode;
}

export interface GateOptions {
  mode: PermissionMode;
  allow: string[];
  ask: string[];
  deny: string[];
  headless: boolean;
  workspace: string;
  pathPolicy: PathPolicy;
  projectConfigPath: string;
  /** The user's config file (~/.reasonix/config.toml), where plain "allow always" saves. */
  userConfigPath?: string;
  onPersist?: (edit: PersistedEdit) => void;
}

export function createPermissionGate(o: GateOptions): PermissionGate {
  return new Permissions({
    mode: o.mode,
    allow: o.allow,
    ask: o.ask,
    deny: o.deny,
    headless: o.headless,
    projectConfigPath: o.projectConfigPath,
    userConfigPath: o.userConfigPath,
    workspace: o.workspace,
    pathPolicy: o.pathPolicy,
    onPersist: o.onPersist,
  });
}
