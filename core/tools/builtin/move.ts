import { copyFileSync, lstatSync, mkdirSync, renameSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import type { ToolDefinition } from "../types.ts";
import { absoluteInput, bool, display, done, fail, guardedWrite, policyFor, statOrNull, str } from "./common.ts";

interface Input { source: string; destination: string; overwrite?: boolean }

export const moveFileTool: ToolDefinition<Input> = {
  name: "move_file",
  description:
    "Move or rename a file. destination is the full new path; parent directories are created. An existing destination is refused unless overwrite is true. Directories and symlinks are not moved (use bash).",
  inputSchema: {
    type: "object",
    properties: {
      source: { type: "string", description: "existing file path" },
      destination: { type: "string", description: "new file path" },
      overwrite: { type: "boolean", description: "replace an existing destination file (default false)" },
    },
    required: ["source", "destination"],
    additionalProperties: false,
  },
  kind: "write",
  summarize: (i) => `move ${i?.source ?? "?"} → ${i?.destination ?? "?"}`,
  paths: (i) => [i.source, i.destination],
  run: guardedWrite(async (input, ctx) => {
    const source = str(input, "source");
    const destination = str(input, "destination");
    const overwrite = bool(input, "overwrite");
    const policy = policyFor(ctx);
    const srcAbs = absoluteInput(source, ctx);
    // Look at the entry itself, not what a link points to: moving a link is not moving its target.
    const srcEntry = `${policy.resolve(dirname(srcAbs))}/${srcAbs.slice(srcAbs.lastIndexOf("/") + 1)}`;
    let lst;
    try {
      lst = lstatSync(srcEntry);
    } catch {
      return fail(`file not found: ${display(srcEntry, ctx)}`);
    }
    if (lst.isSymbolicLink()) return fail(`${display(srcEntry, ctx)} is a symbolic link; move_file moves regular files only`);
    if (lst.isDirectory()) return fail(`${display(srcEntry, ctx)} is a directory; move_file moves files only (use bash mv for directories)`);
    if (!lst.isFile()) return fail(`${display(srcEntry, ctx)} is not a regular file`);
    const s = policy.checkRemove(srcEntry);
    if (!s.allowed) return fail(s.reason);
    const dAbs = absoluteInput(destination, ctx);
    const d = policy.checkWrite(dAbs);
    if (!d.allowed) return fail(d.reason);
    if (d.path === s.path) return done(`no change: source and destination are the same file`, `${display(s.path, ctx)} unchanged`);
    const dst = statOrNull(d.path);
    if (dst?.isDirectory()) return fail(`${display(d.path, ctx)} is a directory; give the full destination file path`);
    if (dst && !overwrite) return fail(`${display(d.path, ctx)} already exists; set overwrite to replace it`);
    await ctx.beforeWrite(s.path);
    await ctx.beforeWrite(d.path);
    mkdirSync(dirname(d.path), { recursive: true });
    try {
      renameSync(s.path, d.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EXDEV") throw e;
      copyFileSync(s.path, d.path);
      unlinkSync(s.path);
    }
    const stamp = ctx.readStamps.get(s.path);
    ctx.readStamps.delete(s.path);
    if (stamp !== undefined) {
      const after = statOrNull(d.path);
      if (after) ctx.readStamps.set(d.path, `${after.mtimeMs}:${after.size}`);
    }
    const from = display(s.path, ctx);
    const to = display(d.path, ctx);
    return done(`Moved ${from} to ${to}${dst ? " (replaced the old file)" : ""}`, `moved ${from} → ${to}`);
  }),
};
