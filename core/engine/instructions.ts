import { existsSync, readFileSync, statSync } from "node:fs";
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

/** User-global first, then ancestors (outermost first), then the project itself. */
export function findInstructionFiles(workspace: string, userDir: string): InstructionFile[] {
  const ws = resolve(workspace);
  const dirs: { dir: string; scope: InstructionFile["scope"] }[] = [
    { dir: resolve(userDir), scope: "user" },
    ...ancestors(ws).map((dir) => ({ dir, scope: "ancestor" as const })),
    { dir: ws, scope: "project" },
  ];
  const seen = new Set<string>();
  const out: InstructionFile[] = [];
  let total = 0;
  for (const { dir, scope } of dirs) {
    for (const name of INSTRUCTION_FILES) {
      const path = join(dir, name);
      if (seen.has(path) || !existsSync(path)) continue;
      seen.add(path);
      try {
        if (!statSync(path).isFile()) continue;
        let text = readFileSync(path, "utf8");
        if (text.length > MAX_FILE_BYTES) text = `${text.slice(0, MAX_FILE_BYTES)}\n[truncated: file larger than ${MAX_FILE_BYTES} bytes]`;
        if (total + text.length > MAX_TOTAL_BYTES) continue;
        total += text.length;
        if (text.trim()) out.push({ path, scope, text });
      } catch {
        // Unreadable instruction files are skipped; they are advice, not config.
      }
    }
  }
  return out;
}

/** The tagged block that carries instructions inside the conversation. */
export function instructionsBlock(files: InstructionFile[]): string | null {
  if (files.length === 0) return null;
  const parts = files.map((f) => `<file path="${f.path}" scope="${f.scope}">\n${f.text.trimEnd()}\n</file>`);
  return `<project-instructions>\nInstructions from the user and the project. Later files take precedence over earlier ones.\n${parts.join("\n")}\n</project-instructions>`;
}
