/**
 * Where facts live: under the Reasonix home, never inside a repository.
 * Project facts are keyed by the workspace's real path, so a clone cannot
 * ship facts and a remote workspace uses the remote machine's home.
 *
 *   <home>/memory/global/{facts,revisions,archived}/
 *   <home>/memory/projects/<name>-<hash>/{facts,revisions,archived}/ (+ workspace.txt)
 *   <home>/memory/locks/<id>.lock
 */
import { sha256 } from "../trust/inputs.ts";
import { realpathSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { FactScope } from "./fact.ts";

export function realWorkspace(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch {
    return resolve(workspace);
  }
}

/** A readable, stable folder name for a workspace: `<name>-<12 hex of its real path>`. */
export function workspaceKey(workspace: string): string {
  const real = realWorkspace(workspace);
  const name = basename(real).toLowerCase().replace(/[^a-z0-9._-]+/g, "-").slice(0, 40) || "root";
  return `${name}-${sha256(real).slice(0, 12)}`;
}

export interface MemoryPaths {
  root: string;
  locks: string;
  scope(scope: FactScope): { dir: string; facts: string; revisions: string; archived: string };
}

export function memoryPaths(home: string, workspace: string): MemoryPaths {
  const root = join(home, "memory");
  const project = join(root, "projects", workspaceKey(workspace));
  const global = join(root, "global");
  return {
    root,
    locks: join(root, "locks"),
    scope(scope) {
      const dir = scope === "project" ? project : global;
      return { dir, facts: join(dir, "facts"), revisions: join(dir, "revisions"), archived: join(dir, "archived") };
    },
  };
}
