// Project inputs: everything a repository can ship that Reasonix reads. Each
// is identified by its path relative to the workspace and the SHA-256 of its
// bytes, so trust is given to exact content, not to a folder.
import { lstatSync, readdirSync } from "node:fs";
import { join, sep } from "node:path";
import { ConfigError } from "../errors.ts";
import { hashRegularFile, InputRefused, MAX_HASHED_INPUT_BYTES, MAX_PROJECT_INPUT_BYTES, readRegularFile } from "../fs/bounded-read.ts";

/** Single files a workspace may ship. */
export const PROJECT_FILES = ["reasonix.toml", ".mcp.json"] as const;
/** Folders whose files are project inputs: `.reasonix/` (commands, skills, hooks, agents) and `.agents/skills/` (skills). */
export const PROJECT_DIRS = [".reasonix", ".agents/skills"] as const;
/** A repository cannot make `reasonix trust` hash forever. */
export const MAX_INPUT_FILES = 2000;
/** Inputs Reasonix parses at start (limit MAX_PROJECT_INPUT_BYTES); other inputs are only hashed here (MAX_HASHED_INPUT_BYTES). */
const PARSED_INPUTS = new Set<string>([...PROJECT_FILES, ".reasonix/hooks.toml"]);

export interface ProjectInput {
  /** Path relative to the workspace, with `/` separators. */
  rel: string;
  sha256: string;
  bytes: number;
}

// Bun's hasher, not node:crypto: loading that module costs ~5 ms of CPU before the chat's first frame.
export const sha256 = (data: string | Uint8Array): string => new Bun.CryptoHasher("sha256").update(data).digest("hex");

/** A symlink's digest is this marker plus its target's content, so a link and a copy differ (describe.ts digests the same way). */
export const LINK_DIGEST_PREFIX = Buffer.from("link\0");

/**
 * Hash one input; undefined when it is absent or cannot be opened (a dangling
 * symlink). Anything but a regular file (a symlink to one counts), or one
 * over its size limit, is refused with a ConfigError naming the path and the
 * reason, before a byte is read: a FIFO or /dev/zero would hang or never end.
 */
export function hashInput(workspace: string, rel: string): ProjectInput | undefined {
  const abs = join(workspace, ...rel.split("/"));
  let st;
  try {
    st = lstatSync(abs);
  } catch {
    return undefined;
  }
  try {
    const h = hashRegularFile(abs, PARSED_INPUTS.has(rel) ? MAX_PROJECT_INPUT_BYTES : MAX_HASHED_INPUT_BYTES, st.isSymbolicLink() ? LINK_DIGEST_PREFIX : undefined);
    return { rel, ...h };
  } catch (e) {
    if (e instanceof InputRefused) throw projectInputError(e);
    return undefined;
  }
}

/** The bytes of a project file Reasonix parses (at most MAX_PROJECT_INPUT_BYTES); a ConfigError naming it when it is not a regular file or too large. */
export function readProjectFile(abs: string): Buffer {
  try {
    return readRegularFile(abs, MAX_PROJECT_INPUT_BYTES);
  } catch (e) {
    throw e instanceof InputRefused ? projectInputError(e) : e;
  }
}

/** A refused project input as the error every command stops with. */
export const projectInputError = (e: InputRefused): ConfigError =>
  new ConfigError(e.path, `${e.reason}; Reasonix reads only regular files from a project (remove or replace it)`);

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
