import { existsSync, lstatSync, readFileSync, realpathSync, statSync, type Stats } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Instruction file names, in the order they are read within one directory. */
export const INSTRUCTION_FILES = ["REASONIX.md", "AGENTS.md", "CLAUDE.md", "REASONIX.local.md", "AGENTS.local.md", "CLAUDE.local.md"];
const MAX_FILE_BYTES = 64 * 1024;
const MAX_TOTAL_BYTES = 192 * 1024;

export interface InstructionFile {
  path: string;
  scope: "user" | "ancestor" | "project";
  text: string;
}

/** Directories from the filesystem root down to (excluding) the workspace. */
function ancestors(workspace: string): string[] {
  const out: string[] = [];
  let d = dirname(workspace);
  for (;;) {
    out.unshift(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return out;
}

/** An instruction file that was found but not read, and why. */
export interface SkippedInstructionFile {
  path: string;
  reason: string;
}

export interface InstructionScan {
  files: InstructionFile[];
  skipped: SkippedInstructionFile[];
}

const octal = (st: Stats) => (st.mode & 0o7777).toString(8);

/** Why someone other than us (or root) could have written this, or null. */
function foreignWriter(st: Stats, what: string, uid: number | undefined): string | null {
  if (st.mode & 0o002) return `${what} is world-writable (mode ${octal(st)})`;
  if (st.mode & 0o020) return `${what} is group-writable (mode ${octal(st)})`;
  if (uid !== undefined && st.uid !== uid && st.uid !== 0) return `${what} is owned by uid ${st.uid} (not you or root)`;
  return null;
}

/**
 * Whether an instruction file in an ancestor directory could have been put
 * there by another local user. Whoever can write a directory can create or
 * replace any file in it — the sticky bit (/tmp) only stops them removing
 * *our* files, not creating one we have not made yet — so a file is trusted
 * only when the file and its directory (where it was found, and where a
 * symlink leads) are writable by nobody but us or root.
 */
function untrustedReason(path: string, dir: string, uid: number | undefined): string | null {
  const places = [dir];
  if (lstatSync(path).isSymbolicLink()) places.push(dirname(realpathSync(path)));
  for (const d of places) {
    const why = foreignWriter(statSync(d), d, uid);
    if (why) return why;
  }
  return foreignWriter(statSync(path), "the file", uid);
}

/**
 * User-global first, then ancestors (outermost first), then the project
 * itself. Ancestor files another user could have written are skipped and
 * reported; the user's own directory and the workspace are read as they are
 * (the workspace is what the user chose to work in).
 */
export function scanInstructionFiles(workspace: string, userDir: string): InstructionScan {
  const ws = resolve(workspace);
  const uid = process.getuid?.();
  const dirs: { dir: string; scope: InstructionFile["scope"] }[] = [
    { dir: resolve(userDir), scope: "user" },
    ...ancestors(ws).map((dir) => ({ dir, scope: "ancestor" as const })),
    { dir: ws, scope: "project" },
  ];
  const seen = new Set<string>();
  const files: InstructionFile[] = [];
  const skipped: SkippedInstructionFile[] = [];
  let total = 0;
  for (const { dir, scope } of dirs) {
    for (const name of INSTRUCTION_FILES) {
      const path = join(dir, name);
      if (seen.has(path) || !existsSync(path)) continue;
      seen.add(path);
      try {
        if (!statSync(path).isFile()) continue;
        const why = scope === "ancestor" ? untrustedReason(path, dir, uid) : null;
        if (why) {
          skipped.push({ path, reason: why });
          continue;
        }
        let text = readFileSync(path, "utf8");
        if (text.length > MAX_FILE_BYTES) text = `${text.slice(0, MAX_FILE_BYTES)}\n[truncated: file larger than ${MAX_FILE_BYTES} bytes]`;
        if (total + text.length > MAX_TOTAL_BYTES) continue;
        total += text.length;
        if (text.trim()) files.push({ path, scope, text });
      } catch {
        // Unreadable instruction files are skipped; they are advice, not config.
      }
    }
  }
  return { files, skipped };
}

export function findInstructionFiles(workspace: string, userDir: string): InstructionFile[] {
  return scanInstructionFiles(workspace, userDir).files;
}

/** The one-line warning for a skipped file, as front ends show it. */
export function skippedWarning(s: SkippedInstructionFile): string {
  return `instruction file ${s.path} skipped: ${s.reason}, so another user could have written it`;
}

/** The tagged block that carries instructions inside the conversation. */
export function instructionsBlock(files: InstructionFile[]): string | null {
  if (files.length === 0) return null;
  const parts = files.map((f) => `<file path="${f.path}" scope="${f.scope}">\n${f.text.trimEnd()}\n</file>`);
  return `<project-instructions>\nInstructions from the user and the project. Later files take precedence over earlier ones.\n${parts.join("\n")}\n</project-instructions>`;
}
