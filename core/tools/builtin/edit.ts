import { readFileSync } from "node:fs";
import type { ToolContext, ToolDefinition, ToolResult } from "../types.ts";
import { commitText, staleReason } from "./write.ts";
import { bool, checkWrite, display, done, fail, guardedWrite, looksBinary, str, statOrNull, ToolInputError } from "./common.ts";

export interface Edit { old_string: string; new_string: string; replace_all?: boolean }

function occurrences(hay: string, needle: string): number {
  let n = 0;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) n++;
  return n;
}

/**
 * Lines added and removed between two texts: common head and tail lines are
 * skipped, the middle is compared with an LCS (bounded; beyond the bound the
 * whole middle counts as changed).
 */
export function lineDelta(before: string, after: string): { added: number; removed: number } {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  if (x.length * y.length > 4_000_000) return { added: y.length, removed: x.length };
  let prev = new Uint32Array(y.length + 1);
  let cur = new Uint32Array(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) cur[j] = x[i - 1] === y[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    [prev, cur] = [cur, prev];
  }
  const common = prev[y.length]!;
  return { added: y.length - common, removed: x.length - common };
}

/**
 * Apply one edit to TEXT. Returns the new text or a message saying why not.
 * A file with CRLF line ends also accepts an old_string written with LF.
 */
function applyEdit(text: string, e: Edit, where: string): { text: string; count: number } | string {
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
  return { text: next, count: e.replace_all ? n : 1 };
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
  const viaClient = await ctx.files?.readText?.(d.path);
  const buf = typeof viaClient === "string" ? Buffer.from(viaClient) : readFileSync(d.path);
  if (looksBinary(buf)) return fail(`${shown} is a binary file; edit_file changes text files only`);
  const original = buf.toString("utf8");
  let text = original;
  let replaced = 0;
  for (let i = 0; i < edits.length; i++) {
    const r = applyEdit(text, edits[i]!, edits.length > 1 ? `edit ${i + 1} of ${edits.length}` : shown);
    if (typeof r === "string") return fail(edits.length > 1 ? `${r}. No edit was applied to ${shown}.` : r);
    text = r.text;
    replaced += r.count;
  }
  const { added, removed } = lineDelta(original, text);
  await ctx.beforeWrite(d.path);
  await commitText(d.path, text, ctx);
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
  run: guardedWrite(async (input, ctx) => {
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
  run: guardedWrite(async (input, ctx) => editFile(str(input, "path"), parseEdits(input), ctx)),
};
