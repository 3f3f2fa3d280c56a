import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { ToolDefinition } from "../types.ts";
import { walkFiles } from "../walk.ts";
import { checkRead, display, done, fail, guarded, policyFor, statOrNull, str } from "./common.ts";

const MAX_RESULTS = 500;

interface Input { pattern: string; path?: string }

/** Split `/abs/dir/**\/*.ts` or `../x/*.md` into a fixed base and the glob below it. */
export function splitGlobBase(pattern: string): { base: string; rest: string } {
  const parts = pattern.split("/");
  let i = 0;
  while (i < parts.length - 1 && !/[*?[\]{}]/.test(parts[i]!)) i++;
  if (i === 0) return { base: "", rest: pattern };
  const base = parts.slice(0, i).join("/") || "/";
  return { base, rest: parts.slice(i).join("/") };
}

export const globTool: ToolDefinition<Input> = {
  name: "glob",
  description:
    "Find files by glob pattern (e.g. **/*.ts, src/**/test_*.py, *.{json,toml}), newest first. `*` stays within one directory, `**` crosses directories. Files ignored by .gitignore/.ignore and the .git directory are skipped.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "glob pattern, relative to path" },
      path: { type: "string", description: "directory to search (default: the workspace)" },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  kind: "read",
  summarize: (i) => `glob ${i?.pattern ?? "?"}${i?.path ? ` in ${i.path}` : ""}`,
  paths: (i) => [i?.path || "."],
  run: guarded(async (input, ctx) => {
    let pattern = str(input, "pattern");
    let path = str(input, "path", { optional: true }) || ".";
    if (isAbsolute(pattern) || pattern.startsWith("../") || pattern.startsWith("./")) {
      const s = splitGlobBase(pattern);
      if (s.base !== "") {
        path = isAbsolute(s.base) ? s.base : `${path}/${s.base}`;
        pattern = s.rest;
      }
    }
    const d = checkRead(path, ctx);
    if (!d.allowed) return fail(d.reason);
    const st = statOrNull(d.path);
    if (!st?.isDirectory()) return fail(`${display(d.path, ctx)} is not a directory`);
    let matcher: InstanceType<typeof Bun.Glob>;
    try {
      matcher = new Bun.Glob(pattern);
    } catch (e) {
      return fail(`invalid glob pattern: ${(e as Error).message}`);
    }
    const hits: { abs: string; mtime: number }[] = [];
    for (const f of walkFiles(d.path, { hidden: true, gitignore: true, policy: policyFor(ctx) })) {
      if (!matcher.match(f.rel)) continue;
      let mtime = 0;
      try { mtime = statSync(f.abs).mtimeMs; } catch {}
      hits.push({ abs: f.abs, mtime });
    }
    if (hits.length === 0) return done(`no files match ${pattern} in ${display(d.path, ctx)}`);
    hits.sort((a, b) => b.mtime - a.mtime || (a.abs < b.abs ? -1 : 1));
    const lines = hits.slice(0, MAX_RESULTS).map((h) => display(h.abs, ctx));
    if (hits.length > MAX_RESULTS) lines.push(`… ${hits.length - MAX_RESULTS} more files; narrow the pattern`);
    return done(lines.join("\n"));
  }),
};
