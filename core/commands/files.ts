/**
 * Reading command and skill files from disk, with the workspace-trust check
 * done on the very bytes that are parsed (no window between check and use).
 */
import { readdirSync, statSync } from "node:fs";
import { InputRefused, readRegularFile } from "../fs/bounded-read.ts";
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
  let data: Buffer;
  try {
    // Never a FIFO or device (the folder listing checked, but the file may have been swapped since), never more than the limit.
    data = readRegularFile(abs, MAX_BYTES, "a command or skill file");
  } catch (e) {
    if (e instanceof InputRefused) return { text: "", refused: `not loaded: ${e.reason}` };
    throw e;
  }
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
    // Anything else with a wanted name is listed too: a FIFO, a device or a link to one is refused by readInput (not loaded, with the reason), never skipped in silence.
    else if (want(e.name) && !(e.isSymbolicLink() && isDir(join(root, rel)))) out.push(rel);
  }
  return out;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
