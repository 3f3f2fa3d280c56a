/**
 * Line diffs of what a writer tool changes, as unified hunks with line
 * numbers. The engine sends them with `approval_request` (what the call
 * would change, computed from its input and the file as it is now) and with
 * `tool_result` (what landed: the file before the call against the file
 * after), so every front end shows the same diff without recomputing it.
 * (core/engine/diff.ts gives ACP its old/new text pairs; this adds hunks.)
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { structuredPatch } from "diff";
import { expandTilde } from "../home.ts";

import type { DiffHunk, FileDiff } from "../protocol/events.ts";
export type { DiffHunk, FileDiff } from "../protocol/events.ts";

/** Largest file diffed. */
const MAX_FILE = 1024 * 1024;
/** Diff lines kept per file (counts stay exact). */
const MAX_LINES = 2000;
const WRITERS = new Set(["write_file", "edit_file", "multi_edit", "move_file"]);

export const isWriter = (tool: string): boolean => WRITERS.has(tool);

const abs = (workspace: string, p: string): string => {
  const t = expandTilde(p);
  return isAbsolute(t) ? t : resolve(workspace, t);
};

const shown = (workspace: string, p: string): string => {
  const r = relative(workspace, p);
  return r && !r.startsWith("..") && !isAbsolute(r) ? r : p;
};

/** The file's text; null = absent; undefined = not diffable (too big, binary, not a file). */
export function readText(path: string): string | null | undefined {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) return undefined;
    size = st.size;
  } catch {
    return null;
  }
  if (size > MAX_FILE) return undefined;
  try {
    const buf = readFileSync(path);
    if (buf.includes(0)) return undefined;
    return buf.toString("utf8");
  } catch {
    return undefined;
  }
}

/** Unified hunks (3 lines of context) between two texts. */
export function diffTexts(path: string, before: string | null | undefined, after: string | null | undefined, from?: string): FileDiff {
  const kind: FileDiff["kind"] = from ? "move" : before === null ? "add" : after === null ? "delete" : "modify";
  const out: FileDiff = { path, ...(from ? { from } : {}), kind, added: 0, removed: 0, hunks: [] };
  if (before === undefined || after === undefined) return { ...out, truncated: true };
  const patch = structuredPatch(from ?? path, path, before ?? "", after ?? "", "", "", { context: 3 });
  let kept = 0;
  for (const h of patch.hunks) {
    const lines = h.lines.filter((l) => !l.startsWith("\\"));
    for (const l of lines) {
      if (l[0] === "+") out.added++;
      else if (l[0] === "-") out.removed++;
    }
    if (kept >= MAX_LINES) {
      out.truncated = true;
      continue;
    }
    const room = MAX_LINES - kept;
    if (lines.length > room) out.truncated = true;
    const take = lines.slice(0, room);
    kept += take.length;
    out.hunks.push({ oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines: take });
  }
  return out;
}

interface Edit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** Apply edits like edit_file does (CRLF files accept LF old_string); null when one does not apply. */
function applyEdits(text: string, edits: Edit[]): string | null {
  for (const e of edits) {
    if (typeof e?.old_string !== "string" || typeof e?.new_string !== "string" || e.old_string === "") return null;
    let o = e.old_string;
    let n = e.new_string;
    if (!text.includes(o) && text.includes("\r\n") && !o.includes("\r\n")) {
      o = o.replace(/\n/g, "\r\n");
      n = n.replace(/\r?\n/g, "\r\n");
    }
    if (!text.includes(o)) return null;
    text = e.replace_all ? text.split(o).join(n) : text.replace(o, () => n);
  }
  return text;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** Absolute paths a writer call touches (source first for a move). */
export function writerPaths(tool: string, input: unknown, workspace: string): string[] {
  const i = (input ?? {}) as Record<string, unknown>;
  if (tool === "move_file") {
    const s = str(i.source);
    const d = str(i.destination);
    return s && d ? [abs(workspace, s), abs(workspace, d)] : [];
  }
  const p = isWriter(tool) ? str(i.path) : undefined;
  return p ? [abs(workspace, p)] : [];
}

/**
 * What a writer call would change, from its input and the files as they are
 * now. [] for other tools, malformed input, or an edit that would not apply
 * (the tool itself reports why).
 */
export function proposedFileDiffs(tool: string, input: unknown, workspace: string): FileDiff[] {
  const i = (input ?? {}) as Record<string, unknown>;
  const paths = writerPaths(tool, input, workspace);
  if (!paths.length) return [];
  const p = paths[0]!;
  const before = readText(p);
  let after: string | null | undefined;
  switch (tool) {
    case "write_file":
      if (typeof i.content !== "string") return [];
      after = i.content;
      break;
    case "edit_file":
    case "multi_edit": {
      if (typeof before !== "string") return before === undefined ? [diffTexts(shown(workspace, p), undefined, undefined)] : [];
      const edits = tool === "edit_file" ? [i as unknown as Edit] : Array.isArray(i.edits) ? (i.edits as Edit[]) : [];
      if (!edits.length) return [];
      const next = applyEdits(before, edits);
      if (next === null) return [];
      after = next;
      break;
    }
    case "move_file": {
      const dest = paths[1]!;
      const replaced = readText(dest);
      const moved = diffTexts(shown(workspace, dest), before, before, shown(workspace, p));
      return replaced === null ? [moved] : [moved, diffTexts(shown(workspace, dest), replaced, before)];
    }
    default:
      return [];
  }
  return [diffTexts(shown(workspace, p), before, after)];
}

/** Before-images of the files a writer call touches, taken just before it runs. */
export function snapshot(tool: string, input: unknown, workspace: string): Map<string, string | null | undefined> {
  return new Map(writerPaths(tool, input, workspace).map((p) => [p, readText(p)]));
}

/** What landed: each snapshotted file against its content now; unchanged files are left out. */
export function landedFileDiffs(tool: string, input: unknown, workspace: string, before: Map<string, string | null | undefined>): FileDiff[] {
  const paths = [...before.keys()];
  if (tool === "move_file" && paths.length === 2) {
    const [src, dest] = paths as [string, string];
    const was = before.get(src);
    const now = readText(dest);
    if (readText(src) !== null || now === null) return []; // did not move
    const out = [diffTexts(shown(workspace, dest), was, was, shown(workspace, src))];
    const replaced = before.get(dest);
    if (replaced !== null) out.push(diffTexts(shown(workspace, dest), replaced, now));
    return out;
  }
  const out: FileDiff[] = [];
  for (const [p, was] of before) {
    const now = readText(p);
    if (now === was && was !== undefined) continue;
    out.push(diffTexts(shown(workspace, p), was, now));
  }
  return out;
}
