import { existsSync, lstatSync, realpathSync, statSync, type Stats } from "node:fs";
import { InputRefused, readRegularHead } from "../fs/bounded-read.ts";
import { dirname, join, resolve, sep } from "node:path";

/** Instruction file names, in the order they are read within one directory. */
export const INSTRUCTION_FILES = ["REASONIX.md", "AGENTS.md", "CLAUDE.md", "REASONIX.local.md", "AGENTS.local.md", "CLAUDE.local.md"];
const MAX_FILE_BYTES = 64 * 1024;
const MAX_TOTAL_BYTES = 192 * 1024;

/** At most MAX_FILE_BYTES of an instruction file, never blocking on a FIFO or reading a device (InputRefused). */
function readInstructionFile(path: string): string {
  const { data, truncated } = readRegularHead(path, MAX_FILE_BYTES);
  const text = data.toString("utf8");
  return truncated ? `${text}\n[truncated: file larger than ${MAX_FILE_BYTES} bytes]` : text;
}

export interface InstructionFile {
  path: string;
  scope: "user" | "ancestor" | "project";
  text: string;
  /** For a file pulled in by an `@path` line of another: `file:line` of that reference. */
  importedFrom?: string;
}

/** How deep `@path` imports may nest (a file imported by an import … up to this many levels). */
export const MAX_IMPORT_DEPTH = 5;

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
  /** Imports that were refused (cycle, too deep, outside the workspace), each naming file:line. */
  warnings: string[];
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
  const warnings: string[] = [];
  let total = 0;
  const budget = { left: () => MAX_TOTAL_BYTES - total, take: (n: number) => void (total += n) };
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
        const text = readInstructionFile(path);
        if (total + text.length > MAX_TOTAL_BYTES) continue;
        total += text.length;
        if (text.trim()) {
          files.push({ path, scope, text });
          const roots = scope === "user" ? [ws, resolve(userDir)] : [ws];
          files.push(...importsOf({ path, scope, text }, roots, [realOf(path)], warnings, budget));
        }
      } catch {
        // Unreadable instruction files are skipped; they are advice, not config.
      }
    }
  }
  return { files, skipped, warnings };
}

const realOf = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};
const inside = (p: string, root: string) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * `@path` references in an instruction file (outside code fences and inline
 * code) that name an existing file, read as further instruction files.
 * Relative to the file's folder; `~/` is the home directory. A reference to
 * nothing is ordinary text. Refused, with a warning naming file:line: a
 * cycle, nesting deeper than MAX_IMPORT_DEPTH, a target outside `roots`.
 */
function importsOf(
  parent: InstructionFile,
  roots: string[],
  stack: string[],
  warnings: string[],
  budget: { left(): number; take(n: number): void },
): InstructionFile[] {
  const out: InstructionFile[] = [];
  let fence = false;
  parent.text.split("\n").forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) return;
    const bare = line.replace(/`[^`]*`/g, "");
    for (const m of bare.matchAll(/(?:^|\s)@((?:~\/|\.{0,2}\/)?[A-Za-z0-9_.\-/]+)/g)) {
      const ref = m[1]!.replace(/[.,;:]+$/, "");
      const home = process.env.HOME ?? "";
      const abs = ref.startsWith("~/") ? join(home, ref.slice(2)) : resolve(dirname(parent.path), ref);
      let st;
      try {
        st = statSync(abs);
      } catch {
        continue;
      }
      if (!st.isFile()) continue;
      const where = `${parent.path}:${i + 1}`;
      const real = realOf(abs);
      if (!roots.some((r) => inside(real, realOf(r)))) {
        warnings.push(`${where}: import @${ref} refused: ${real} is outside the workspace`);
        continue;
      }
      if (stack.includes(real)) {
        warnings.push(`${where}: import @${ref} refused: it would import ${real} again (a cycle)`);
        continue;
      }
      if (stack.length > MAX_IMPORT_DEPTH) {
        warnings.push(`${where}: import @${ref} refused: imports nest deeper than ${MAX_IMPORT_DEPTH} levels`);
        continue;
      }
      let text: string;
      try {
        text = readInstructionFile(real);
      } catch (e) {
        if (e instanceof InputRefused) warnings.push(`${where}: import @${ref} refused: ${e.message}`);
        continue;
      }
      if (text.length > budget.left()) {
        warnings.push(`${where}: import @${ref} skipped: instruction files exceed ${MAX_TOTAL_BYTES} bytes in total`);
        continue;
      }
      budget.take(text.length);
      const file: InstructionFile = { path: abs, scope: parent.scope, text, importedFrom: where };
      out.push(file, ...importsOf(file, roots, [...stack, real], warnings, budget));
    }
  });
  return out;
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
  const parts = files.map((f) => `<file path="${f.path}" scope="${f.scope}"${f.importedFrom ? ` imported-from="${f.importedFrom}"` : ""}>\n${f.text.trimEnd()}\n</file>`);
  return `<project-instructions>\nInstructions from the user and the project. Later files take precedence over earlier ones.\n${parts.join("\n")}\n</project-instructions>`;
}
