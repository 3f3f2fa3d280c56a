/**
 * What a writer call is about to change, as old/new text per file, computed
 * from the call's input (and, for whole-file writes, the file as it is now).
 * Front ends show these as diffs: ACP `diff` tool content, approval cards.
 * Nothing here writes; a file that cannot be read counts as absent.
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { expandTilde } from "../home.ts";

export interface ProposedDiff {
  /** Absolute path of the file. */
  path: string;
  /** Text before; null when the file does not exist yet. For edits, only the replaced fragment. */
  oldText: string | null;
  /** Text after (for edits, only the replacement fragment). */
  newText: string;
}

/** Largest file read for a before-image (bigger files are shown as new content only). */
const MAX_BEFORE = 2 * 1024 * 1024;

const absolute = (workspace: string, p: string): string => {
  const t = expandTilde(p);
  return isAbsolute(t) ? t : resolve(workspace, t);
};

function currentText(abs: string): string | null {
  try {
    const st = statSync(abs);
    if (!st.isFile() || st.size > MAX_BEFORE) return null;
    return readFileSync(abs, "utf8");
  } catch {
    return null;
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * Diffs for the built-in writers (write_file, edit_file, multi_edit); [] for
 * any other tool or an input that does not have the expected shape.
 * `readCurrent` lets a caller supply the file's current text (e.g. an
 * editor's unsaved buffer); it defaults to the file on disk.
 */
export function proposedDiffs(
  tool: string,
  input: unknown,
  workspace: string,
  readCurrent: (abs: string) => string | null = currentText,
): ProposedDiff[] {
  const i = (input ?? {}) as Record<string, unknown>;
  const path = str(i.path);
  if (!path) return [];
  const abs = absolute(workspace, path);
  switch (tool) {
    case "write_file": {
      const content = str(i.content);
      return content === undefined ? [] : [{ path: abs, oldText: readCurrent(abs), newText: content }];
    }
    case "edit_file": {
      const o = str(i.old_string);
      const n = str(i.new_string);
      return o === undefined || n === undefined ? [] : [{ path: abs, oldText: o, newText: n }];
    }
    case "multi_edit": {
      if (!Array.isArray(i.edits)) return [];
      const out: ProposedDiff[] = [];
      for (const e of i.edits as Record<string, unknown>[]) {
        const o = str(e?.old_string);
        const n = str(e?.new_string);
        if (o !== undefined && n !== undefined) out.push({ path: abs, oldText: o, newText: n });
      }
      return out;
    }
    default:
      return [];
  }
}
