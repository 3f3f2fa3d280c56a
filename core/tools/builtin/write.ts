import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../../fs/atomic.ts";
import type { ToolContext, ToolDefinition } from "../types.ts";
import { checkWrite, countLines, display, done, fail, guardedWrite, plural, stampOf, statOrNull, str } from "./common.ts";

interface Input { path: string; content: string }

/**
 * Refuse to replace a file whose current state the agent has not seen: either
 * never read in this session, or changed on disk since it was read.
 */
export function staleReason(abs: string, ctx: ToolContext, requireRead: boolean): string | null {
  const st = statOrNull(abs);
  if (!st) return null;
  const seen = ctx.readStamps.get(abs);
  if (seen === undefined) {
    return requireRead ? `${display(abs, ctx)} already exists and has not been read in this session; read it first so its current content is not lost` : null;
  }
  if (seen !== stampOf(st)) {
    return `${display(abs, ctx)} changed on disk since you last read it; read it again before changing it`;
  }
  return null;
}

/** Write text atomically (or through ctx.files), keeping an existing file's mode, and record the new stamp. */
export async function commitText(abs: string, text: string, ctx: ToolContext): Promise<void> {
  const st = statOrNull(abs);
  if (ctx.files?.writeText) await ctx.files.writeText(abs, text);
  else writeFileAtomic(abs, text, { mode: st ? st.mode & 0o7777 : 0o644 });
  const after = statOrNull(abs);
  if (after) ctx.readStamps.set(abs, stampOf(after));
}

export const writeFileTool: ToolDefinition<Input> = {
  name: "write_file",
  description:
    "Create a file or replace its whole content. Parent directories are created. An existing file must have been read first (read_file) and not changed since. Prefer edit_file for changes to existing files.",
  inputSchema: {
    type: "object",
    properties: {
      path: { type: "string", description: "file path, relative to the workspace or absolute" },
      content: { type: "string", description: "the complete new content" },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  kind: "write",
  summarize: (i) => `write ${i?.path ?? "?"}`,
  paths: (i) => [i.path],
  run: guardedWrite(async (input, ctx) => {
    const path = str(input, "path");
    const content = str(input, "content", { allowEmpty: true });
    const d = checkWrite(path, ctx);
    if (!d.allowed) return fail(d.reason);
    const shown = display(d.path, ctx);
    const st = statOrNull(d.path);
    if (st && !st.isFile()) return fail(`${shown} exists and is not a regular file`);
    if (st) {
      const before = readFileSync(d.path, "utf8");
      if (before === content) return done(`no change: ${shown} already has this content`, `${shown} unchanged`);
      const stale = staleReason(d.path, ctx, true);
      if (stale) return fail(stale);
    }
    await ctx.beforeWrite(d.path);
    await commitText(d.path, content, ctx);
    const lines = countLines(content);
    const receipt = st ? `wrote ${shown} (${plural(lines, "line")})` : `created ${shown} (${plural(lines, "line")})`;
    return done(`${st ? "Replaced" : "Created"} ${shown} (${plural(lines, "line")}, ${Buffer.byteLength(content)} bytes)`, receipt);
  }),
};
