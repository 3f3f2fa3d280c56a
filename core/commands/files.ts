/**
 * Reading command and skill files from disk, with the workspace-trust check
 * done on the very bytes that are parsed (no window between check and use).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { inputTrusted, type TrustState } from "../trust/index.ts";
import { relToWorkspace, sha256 } from "../trust/inputs.ts";
import { UNTRUSTED } from "../trust/policy.ts";

/** A project file may not load until `reasonix trust` approved its exact content. */
export const NOT_TRUSTED = `not loaded: ${UNTRUSTED}`;
/** Bounds on what a command or skill folder can make us read. */
export const MAX_FILES = 1000;
export const MAX_BYTES = 256 * 1024;
const MAX_DEPTH = 6;

export interface Origin {
  scope: "user" | "project";
  /** Set for project files: whose approvals count. */
  trust?: TrustState;
}

export interface ReadResult {
  text: string;
  /** Why the file may not load (untrusted, too large), if so. */
  refused?: string;
}

/** Read one file, judging trust on its bytes for a project origin. */
export function readInput(abs: string, origin: Origin): ReadResult {
  const data = readFileSync(abs);
  if (data.length > MAX_BYTES) return { text: "", refused: `not loaded: larger than ${MAX_BYTES} bytes` };
  const text = data.toString("utf8");
  if (origin.scope === "project") {
    const t = origin.trust;
    const rel = t ? relToWorkspace(t.workspace, abs) : abs;
    if (!t || !inputTrusted(t, rel, { rel, sha256: sha256(data), bytes: data.length })) return { text, refused: NOT_TRUSTED };
  }
  return { text };
}

/** Files under `root` whose name passes `want`, as `/`-separated paths relative to it, sorted; symlinked folders are not entered. */
export function listFiles(root: string, want: (name: string) => boolean, depth = 0, prefix = "", out: string[] = []): string[] {
  if (depth > MAX_DEPTH || out.length >= MAX_FILES) return out;
  let entries;
  try {
    entries = readdirSync(join(root, prefix), { withFileTypes: true });
  } catch {
    return out;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (out.length >= MAX_FILES) break;
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) listFiles(root, want, depth + 1, rel, out);
    else if ((e.isFile() || (e.isSymbolicLink() && isFile(join(root, rel)))) && want(e.name)) out.push(rel);
  }
  return out;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
