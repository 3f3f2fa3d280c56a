import type { ToolDefinition } from "../types.ts";
import { checkRead, display, done, fail, guarded, humanSize, int, looksBinary, readBounded, stampOf, statOrNull, str } from "./common.ts";

const DEFAULT_LIMIT = 2000;
const MAX_LINE = 2000;
const MAX_BYTES = 64 * 1024 * 1024;

interface Input { path: string; offset?: number; limit?: number }

export const readFileTool: ToolDefinition<Input> = {
  name: "read_file",
  description:
    "Read a text file. Lines come numbered (cat -n style). For long files page with offset (1-based first line) and limit (line count, default 2000). Binary files are detected and not shown.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "file path, relative to the workspace or absolute" },
      offset: { type: "integer", minimum: 1, description: "first line to show (1-based)" },
      limit: { type: "integer", minimum: 1, description: "how many lines to show" },
    },
    required: ["path"],
    additionalProperties: false,
  },
  kind: "read",
  summarize: (i) => `read ${i?.path ?? "?"}${i?.offset ? ` from line ${i.offset}` : ""}`,
  paths: (i) => [i.path],
  run: guarded(async (input, ctx) => {
    const path = str(input, "path");
    const offset = int(input, "offset", { min: 1, def: 1 })!;
    const limit = int(input, "limit", { min: 1, def: DEFAULT_LIMIT })!;
    const d = checkRead(path, ctx);
    if (!d.allowed) return fail(d.reason);
    const st = statOrNull(d.path);
    if (!st) return fail(`file not found: ${display(d.path, ctx)}`);
    if (st.isDirectory()) return fail(`${display(d.path, ctx)} is a directory; use ls to list it`);
    if (!st.isFile()) return fail(`${display(d.path, ctx)} is not a regular file`);
    if (st.size > MAX_BYTES) return fail(`${display(d.path, ctx)} is ${humanSize(st.size)}, too large to read; search it with grep instead`);
    const viaClient = await ctx.files?.readText?.(d.path);
    const buf = typeof viaClient === "string" ? Buffer.from(viaClient) : readBounded(d.path, MAX_BYTES);
    if (!buf) return fail(`${display(d.path, ctx)} is larger than ${humanSize(MAX_BYTES)}, too large to read; search it with grep instead`);
    ctx.readStamps.set(d.path, stampOf(st));
    if (looksBinary(buf)) return done(`${display(d.path, ctx)} is a binary file (${humanSize(st.size)}); not shown`);
    if (buf.length === 0) return done(`${display(d.path, ctx)} is empty`);
    const text = buf.toString("utf8");
    const lines = text.split("\n");
    if (text.endsWith("\n")) lines.pop();
    const total = lines.length;
    if (offset > total) return fail(`${display(d.path, ctx)} has ${total} lines; offset ${offset} is past the end`);
    const end = Math.min(total, offset - 1 + limit);
    const width = Math.max(6, String(end).length);
    const out: string[] = [];
    for (let n = offset; n <= end; n++) {
      let line = lines[n - 1]!.replace(/\r$/, "");
      if (line.length > MAX_LINE) line = `${line.slice(0, MAX_LINE)}… [line truncated, ${line.length} chars]`;
      out.push(`${String(n).padStart(width)}\t${line}`);
    }
    if (end < total || offset > 1) {
      out.push(`(lines ${offset}-${end} of ${total}${end < total ? `; continue with offset=${end + 1}` : ""})`);
    }
    return done(out.join("\n"));
  }),
};
