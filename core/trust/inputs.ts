// Project inputs: everything a repository can ship that Reasonix reads. Each
// is identified by its path relative to the workspace and the SHA-256 of its
// bytes, so trust is given to exact content, not to a folder.
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";

/** Single files a workspace may ship. */
export const PROJECT_FILES = ["reasonix.toml", ".mcp.json"] as const;
/** Folders whose files are project inputs: `.reasonix/` (commands, skills, hooks, agents) and `.agents/skills/` (skills). */
export const PROJECT_DIRS = [".reasonix", ".agents/skills"] as const;
/** A repository cannot make `reasonix trust` hash forever. */
export const MAX_INPUT_FILES = 2000;

export interface ProjectInput {
  /** Path relative to the workspace, with `/` separators. */
  rel: string;
  sha256: string;
  bytes: number;
}

// Bun's hasher, not node:crypto: loading that module costs ~5 ms of CPU before the chat's first frame.
export const sha256 = (data: string | Uint8Array): string => new Bun.CryptoHasher("sha256").update(data).digest("hex");

/** Hash one input; undefined when it is absent or not a regular file (a symlink counts as its target's text is not trusted blindly). */
export function hashInput(workspace: string, rel: string): ProjectInput | undefined {
  const abs = join(workspace, ...rel.split("/"));
  let st;
  try {
    st = lstatSync(abs);
  } catch {
    return undefined;
  }
  // A symlink is hashed as its link text plus target content: retargeting it changes the digest.
  let data: Buffer;
  try {
    data = readFileSync(abs);
  } catch {
    return undefined;
  }
  if (!st.isFile() && !st.isSymbolicLink()) return undefined;
  return { rel, sha256: sha256(st.isSymbolicLink() ? Buffer.concat([Buffer.from(`link\0`), data]) : data), bytes: data.length };
}

function walk(workspace: string, relDir: string, out: ProjectInput[]): void {
  let entries;
  try {
    entries = readdirSync(join(workspace, ...relDir.split("/")), { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (out.length >= MAX_INPUT_FILES) return;
    const rel = `${relDir}/${e.name}`;
    if (e.isDirectory()) walk(workspace, rel, out);
    else {
      const h = hashInput(workspace, rel);
      if (h) out.push(h);
    }
  }
}

/** Every project input present in `workspace` (a real path), in a stable order. */
export function listProjectInputs(workspace: string): ProjectInput[] {
  const out: ProjectInput[] = [];
  for (const f of PROJECT_FILES) {
    const h = hashInput(workspace, f);
    if (h) out.push(h);
  }
  for (const d of PROJECT_DIRS) walk(workspace, d, out);
  return out;
}

export const relToWorkspace = (workspace: string, abs: string): string =>
  abs.startsWith(workspace + sep) ? abs.slice(workspace.length + 1).split(sep).join("/") : abs;
