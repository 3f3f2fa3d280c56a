/**
 * The workspace's command registry as every front end builds it: built-ins,
 * custom commands (user, project) and skills (user, project, `.agents/skills`,
 * `[skills] paths`). Front ends add their own local built-ins and the MCP
 * client its prompts with `registerSource()`.
 */
import { isAbsolute, join, resolve } from "node:path";
import { expandTilde } from "../home.ts";
import { trustState, type TrustState } from "../trust/index.ts";
import { builtinSource } from "./builtin.ts";
import { loadCommandDir, projectCommandsDir, userCommandsDir } from "./custom.ts";
import { CommandRegistry } from "./registry.ts";
import { loadSkills, type SkillRoot } from "./skills.ts";
import type { CommandEntry } from "./types.ts";

export { CommandRegistry, BUILTIN_PREFIX } from "./registry.ts";
export type { Catalog, CommandEntry, CommandSource, Shadowed } from "./types.ts";
export { skillIndex } from "./skills.ts";

export interface WorkspaceCommandsOptions {
  workspace: string;
  home: string;
  /** Effective config values (the trust records and [skills] come from here). */
  values: Record<string, unknown>;
  /** Whose approvals count for project files (default: from `values`). */
  trust?: TrustState;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

export function skillRoots(o: WorkspaceCommandsOptions, trust: TrustState): SkillRoot[] {
  const skills = (o.values.skills ?? {}) as Record<string, unknown>;
  const abs = (p: string) => (isAbsolute(expandTilde(p)) ? expandTilde(p) : resolve(o.workspace, p));
  return [
    { dir: join(o.home, "skills"), origin: { scope: "user" } },
    ...strings(skills.paths).map((p) => ({ dir: abs(p), origin: { scope: "user" as const } })),
    { dir: join(o.workspace, ".agents", "skills"), origin: { scope: "project", trust } },
    { dir: join(o.workspace, ".reasonix", "skills"), origin: { scope: "project", trust } },
  ];
}

/** A registry with the built-ins and the workspace's files; file sources re-read the disk whenever the catalog is rebuilt (`invalidate()`). */
export function workspaceCommands(o: WorkspaceCommandsOptions): CommandRegistry {
  const trust = o.trust ?? trustState(o.workspace, o.values);
  const skills = (o.values.skills ?? {}) as Record<string, unknown>;
  const resolvePath = (p: string) => (isAbsolute(expandTilde(p)) ? expandTilde(p) : resolve(o.workspace, p));
  const reg = new CommandRegistry();
  reg.registerSource(builtinSource);
  reg.registerSource({
    id: "commands",
    list: (): CommandEntry[] => [...loadCommandDir(userCommandsDir(o.home), { scope: "user" }), ...loadCommandDir(projectCommandsDir(o.workspace), { scope: "project", trust })],
  });
  reg.registerSource({
    id: "skills",
    list: () => loadSkills(skillRoots(o, trust), { excluded: strings(skills.excluded_paths).map(resolvePath), disabled: strings(skills.disabled_skills) }),
  });
  return reg;
}
