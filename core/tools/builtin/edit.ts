import { readFileSync } from "node:fs";
import type { ToolContext, ToolDefinition, ToolResult } from "../types.ts";
import { commitText, staleReason } from "./write.ts";
import { bool, checkWrite, display, done, fail, guarded, looksBinary, str, statOrNull, ToolInputError } from "./common.ts";

export interface Edit { old_string: string; new_string: string; replace_all?: boolean }

function occurrences(hay: string, needle: string): number {
  let n = 0;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** Lines added and removed by replacing OLD with NEW, ignoring shared leading/trailing lines. */
function lineDelta(oldS: string, newS: string): { added: number; removed: number } {
  const a = oldS.split("\n");
  const b = newS.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { added: b.length - head - tail, removed: a.length - head - tail };
}

/**
 * Apply one edit to TEXT. Returns the new text or a message saying why not.
 * A file with CRLF line ends also accepts an old_string written with LF.
 */
function applyEdit(text: string, e: Edit, where: string): { text: string; count: number; added: number; removed: number } | string {
  if (e.old_string === "") return `${where}: old_string is empty; use write_file to create or replace a whole file`;
  if (e.old_string === e.new_string) return `${where}: old_string and new_string are identical; nothing to change`;
  let oldS = e.old_string;
  let newS = e.new_string;
  let n = occurrences(text, oldS);
  if (n === 0 && text.includes("\r\n") && !oldS.includes("\r\n")) {
    const o = oldS.replace(/\n/g, "\r\n");
    const c = occurrences(text, o);
    if (c > 0) {
      oldS = o;
      newS = newS.replace(/\r?\n/g, "\r\n");
      n = c;
    }
  }
  if (n === 0) {
    const squash = (s: string) => s.replace(/\s+/g, " ").trim();
    const near = squash(oldS) !== "" && squash(text).includes(squash(oldS));
    return `${where}: old_string was not found${near ? " (text matching it exists with different whitespace or indentation; copy it exactly, including indentation)" : ""}. Read the file again and copy the text exactly.`;
  }
  if (n > 1 && !e.replace_all) {
    return `${where}: old_string matches ${n} times; include more surrounding lines to make it unique, or set replace_all to change every occurrence`;
  }
  const next = e.replace_all ? text.split(oldS).join(newS) : text.replace(oldS, () => newS);
  const d = lineDelta(oldS, newS);
  return { text: next, count: e.replace_all ? n : 1, added: d.added * (e.replace_all ? n : 1), removed: d.removed * (e.replace_all ? n : 1) };
}

/** A few numbered lines around the first change, so the model sees what landed. */
function snippet(after: string, newString: string): string {
  const at = after.indexOf(newString);
  if (at < 0) return "";
  const first = after.slice(0, at).split("\n").length;
  const last = first + newString.split("\n").length - 1;
  const lines = after.split("\n");
  const from = Math.max(1, first - 3);
  const to = Math.min(lines.length, last + 3);
  if (to - from > 40) return "";
  const out: string[] = [];
  for (let i = from; i <= to; i++) out.push(`${String(i).padStart(6)}\t${lines[i - 1]}`);
  return out.join("\n");
}

function parseEdits(input: unknown): Edit[] {
  const raw = (input as { edits?: unknown })?.edits;
  if (!Array.isArray(raw) || raw.length === 0) throw new ToolInputError(`"edits" must be a non-empty list`);
  return raw.map((e, i) => {
    if (typeof e !== "object" || e === null) throw new ToolInputError(`edits[${i}] must be an object`);
    return {
      old_string: str(e, "old_string", { allowEmpty: true }),
      new_string: str(e, "new_string", { allowEmpty: true }),
      replace_all: bool(e, "replace_all"),
    };
  });
}

/** Shared body of edit_file and multi_edit: all edits apply in memory, then one write (or none). */
async function editFile(path: string, edits: Edit[], ctx: ToolContext): Promise<ToolResult> {
  const d = checkWrite(path, ctx);
  if (!d.allowed) return fail(d.reason);
  const shown = display(d.path, ctx);
  const st = statOrNull(d.path);
  if (!st) return fail(`file not found: ${shown} (use write_file to create it)`);
  if (!st.isFile()) return fail(`${shown} is not a regular file`);
  const stale = staleReason(d.path, ctx, false);
  if (stale) return fail(stale);
  const buf = readFileSync(d.path);
  if (looksBinary(buf)) return fail(`${shown} is a binary file; edit_file changes text files only`);
  let text = buf.toString("utf8");
  let added = 0;
  let removed = 0;
  let replaced = 0;
  for (let i = 0; i < edits.length; i++) {
    const r = applyEdit(text, edits[i]!, edits.length > 1 ? `edit ${i + 1} of ${edits.length}` : shown);
    if (typeof r === "string") return fail(edits.length > 1 ? `${r}. No edit was applied to ${shown}.` : r);
    text = r.text;
    added += r.added;
    removed += r.removed;
    replaced += r.count;
  }
  await ctx.beforeWrite(d.path);
  commitText(d.path, text, ctx);
  const receipt = `edited ${shown} (+${added} −${removed})`;
  const what = edits.length > 1 ? `applied ${edits.length} edits` : `replaced ${replaced} occurrence${replaced === 1 ? "" : "s"}`;
  const last = edits[edits.length - 1]!;
  const view = edits.length === 1 && !last.replace_all ? snippet(text, last.new_string) : "";
  return done(`Edited ${shown}: ${what} (+${added} −${removed} lines)${view ? `\n${view}` : ""}`, receipt);
}

interface EditInput { path: string; old_string: string; new_string: string; replace_all?: boolean }

export const editFileTool: ToolDefinition<EditInput> = {
  name: "edit_file",
  description:
    "Replace old_string with new_string in a file. old_string must match the file exactly (including indentation) and exactly once, unless replace_all is true. Include enough surrounding lines to make it unique.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "file path, relative to the workspace or absolute" },
      old_string: { type: "string", description: "exact text to replace" },
      new_string: { type: "string", description: "replacement text" },
      replace_all: { type: "boolean", description: "replace every occurrence (default false)" },
    },
    required: ["path", "old_string", "new_string"],
    additionalProperties: false,
  },
  kind: "write",
  summarize: (i) => `edit ${i?.path ?? "?"}`,
  paths: (i) => [i.path],
  run: guarded(async (input, ctx) => {
    const path = str(input, "path");
    const edit: Edit = {
      old_string: str(input, "old_string", { allowEmpty: true }),
      new_string: str(input, "new_string", { allowEmpty: true }),
      replace_all: bool(input, "replace_all"),
    };
    return editFile(path, [edit], ctx);
  }),
};

interface MultiInput { path: string; edits: Edit[] }

export const multiEditTool: ToolDefinition<MultiInput> = {
  name: "multi_edit",
  description:
    "Apply several edits to one file in order, all or nothing: each edit sees the result of the previous ones, and if any edit fails the file is left untouched. Each old_string follows the edit_file rules.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "file path, relative to the workspace or absolute" },
      edits: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          properties: {
            old_string: { type: "string" },
            new_string: { type: "string" },
            replace_all: { type: "boolean" },
          },
          required: ["old_string", "new_string"],
          additionalProperties: false,
        },
      },
    },
    required: ["path", "edits"],
    additionalProperties: false,
  },
  kind: "write",
  summarize: (i) => `edit ${i?.path ?? "?"} (${Array.isArray(i?.edits) ? i.edits.length : 0} edits)`,
  paths: (i) => [i.path],
  run: guarded(async (input, ctx) => editFile(str(input, "path"), parseEdits(input), ctx)),
};
