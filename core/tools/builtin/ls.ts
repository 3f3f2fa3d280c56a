import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { ToolDefinition } from "../types.ts";
import { hiddenByPolicy } from "../walk.ts";
import { checkRead, display, done, fail, guarded, humanSize, policyFor, statOrNull, str } from "./common.ts";

const MAX_ENTRIES = 1000;

interface Input { path?: string }

export const lsTool: ToolDefinition<Input> = {
  name: "ls",
  description:
    "List one directory: subdirectories end with /, symlinks show their target, files show their size. Hidden (dot) entries are included.",
  inputSchema: {
    type: "object",
    properties: { path: { type: "string", description: "directory, relative to the workspace or absolute (default: the workspace)" } },
    additionalProperties: false,
  },
  kind: "read",
  summarize: (i) => `ls ${i?.path || "."}`,
  paths: (i) => [i?.path || "."],
  run: guarded(async (input, ctx) => {
    const path = str(input, "path", { optional: true }) || ".";
    const d = checkRead(path, ctx);
    if (!d.allowed) return fail(d.reason);
    const st = statOrNull(d.path);
    if (!st) return fail(`not found: ${display(d.path, ctx)}`);
    if (!st.isDirectory()) return done(`${display(d.path, ctx)}  (${humanSize(st.size)})`);
    const policy = policyFor(ctx);
    const names = readdirSync(d.path).sort();
    const lines: string[] = [];
    let hidden = 0;
    for (const name of names) {
      const abs = join(d.path, name);
      // An entry that is, or links into, a forbidden path is left out entirely.
      if (hiddenByPolicy(abs, policy) || !policy.checkRead(abs).allowed) { hidden++; continue; }
      if (lines.length >= MAX_ENTRIES) continue;
      let lst;
      try {
        lst = lstatSync(abs);
      } catch {
        continue;
      }
      if (lst.isSymbolicLink()) {
        let target = "?";
        try { target = readlinkSync(abs); } catch {}
        lines.push(`${name} -> ${target}`);
      } else if (lst.isDirectory()) lines.push(`${name}/`);
      else lines.push(`${name}  (${humanSize(lst.size)})`);
    }
    const shown = names.length - hidden;
    if (shown === 0) return done(`${display(d.path, ctx)} is empty`);
    if (shown > MAX_ENTRIES) lines.push(`… ${shown - MAX_ENTRIES} more entries not shown`);
    return done(lines.join("\n"));
  }),
};
