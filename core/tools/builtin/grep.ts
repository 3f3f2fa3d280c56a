/**
 * grep: ripgrep when it is on PATH, otherwise a built-in search that follows
 * ripgrep's defaults (ignore files, hidden files skipped, binary files
 * skipped, sorted by path). Both backends produce the same records and share
 * one formatter, so the model sees the same output either way.
 */
import { statSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import type { PathPolicy } from "../../policy/paths.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../types.ts";
import { hiddenByPolicy, walkFiles } from "../walk.ts";
import { bool, checkRead, display, done, fail, guarded, int, policyFor, readBounded, str, ToolInputError } from "./common.ts";

export type GrepMode = "content" | "files_with_matches" | "count";

export interface GrepQuery {
  pattern: string;
  /** Real path of the file or directory to search. */
  root: string;
  glob?: string;
  ignoreCase: boolean;
  multiline: boolean;
  context: number;
}

export interface GrepRecord {
  file: string;
  line: number;
  text: string;
  match: boolean;
}

/** Stop collecting after this many records (a runaway pattern on a huge tree). */
const HARD_CAP = 20_000;
/** The built-in search skips files larger than this (it holds each file in memory). */
const FALLBACK_MAX_BYTES = 256 * 1024 * 1024;
/** ripgrep looks for NUL in its first buffer; for files of ordinary size that is the whole file. */
const BINARY_SNIFF = 64 * 1024;

export async function grepWithRipgrep(rg: string, q: GrepQuery, policy: PathPolicy, signal?: AbortSignal): Promise<GrepRecord[] | string> {
  // --crlf: `$` matches before \r\n as well, like the fallback (which strips \r).
  const args = [rg, "--json", "--no-config", "--sort", "path", "--no-messages", "--crlf"];
  if (q.ignoreCase) args.push("-i");
  if (q.multiline) args.push("-U");
  if (q.context > 0) args.push("-C", String(q.context));
  if (q.glob) args.push("-g", q.glob);
  args.push("-e", q.pattern);
  // ripgrep matches -g globs against paths relative to its cwd: search a
  // directory from inside it, so globs are relative to the search root.
  const isDir = statSync(q.root).isDirectory();
  if (!isDir) args.push("--", q.root);
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "pipe", stdin: "ignore", cwd: isDir ? q.root : dirname(q.root) });
  const onAbort = () => proc.kill("SIGKILL");
  signal?.addEventListener("abort", onAbort, { once: true });
  const out: GrepRecord[] = [];
  const dec = new TextDecoder();
  let buf = "";
  const take = (line: string) => {
    if (!line) return;
    let ev: { type: string; data: RgData };
    try {
      ev = JSON.parse(line);
    } catch {
      return;
    }
    if (ev.type !== "match" && ev.type !== "context") return;
    const raw = rgText(ev.data.path);
    if (raw === null) return;
    const file = isAbsolute(raw) ? raw : join(q.root, raw);
    if (hiddenByPolicy(file, policy)) return;
    const text = rgText(ev.data.lines) ?? "";
    const lines = text.replace(/\n$/, "").split("\n");
    lines.forEach((t, k) => out.push({ file, line: ev.data.line_number + k, text: t.replace(/\r$/, ""), match: ev.type === "match" }));
  };
  try {
    for await (const chunk of proc.stdout) {
      buf += dec.decode(chunk, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        take(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
      if (out.length >= HARD_CAP) { proc.kill("SIGKILL"); break; }
    }
    take(buf);
    const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    // 0 = matches, 1 = none; 2 = an error (a bad regex is the usual one).
    // ("No files were searched" is also status 2: that is just no matches.)
    const msg = err.trim();
    if (code === 2 && out.length === 0 && msg !== "" && !/No files were searched/.test(msg)) {
      return `grep failed: ${msg.split("\n").slice(-3).join(" ")}`;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  return out;
}

interface RgData { path: { text?: string; bytes?: string }; lines: { text?: string; bytes?: string }; line_number: number }
const rgText = (v: { text?: string; bytes?: string } | undefined): string | null =>
  v?.text ?? (v?.bytes !== undefined ? Buffer.from(v.bytes, "base64").toString("utf8") : null);

/** Translate the pattern for JavaScript: ripgrep's `(?i)` prefix and friends become flags. */
export function compileRegex(pattern: string, ignoreCase: boolean, multiline: boolean): RegExp {
  let p = pattern;
  let flags = "m";
  const lead = /^\(\?([imsx]+)\)/.exec(p);
  if (lead) {
    p = p.slice(lead[0].length);
    if (lead[1]!.includes("i")) ignoreCase = true;
    if (lead[1]!.includes("s")) flags += "s";
  }
  if (ignoreCase) flags += "i";
  if (multiline) flags += "g";
  try {
    return new RegExp(p, `${flags}u`);
  } catch {
    try {
      return new RegExp(p, flags);
    } catch (e) {
      throw new ToolInputError(`invalid regular expression: ${(e as Error).message}`);
    }
  }
}

export function grepBuiltin(q: GrepQuery, policy: PathPolicy): GrepRecord[] {
  const re = compileRegex(q.pattern, q.ignoreCase, q.multiline);
  const st = statSync(q.root);
  const files: string[] = [];
  if (st.isFile()) {
    files.push(q.root);
  } else {
    for (const f of walkFiles(q.root, { hidden: false, gitignore: true, policy, override: q.glob })) files.push(f.abs);
  }
  const out: GrepRecord[] = [];
  for (const file of files) {
    if (hiddenByPolicy(file, policy)) continue;
    let buf: Buffer;
    try {
      const b = readBounded(file, FALLBACK_MAX_BYTES);
      if (!b) continue;
      buf = b;
    } catch {
      continue;
    }
    if (buf.subarray(0, BINARY_SNIFF).includes(0)) continue;
    const lines = buf.toString("utf8").split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    const hits = new Set<number>();
    if (q.multiline) {
      const text = lines.join("\n");
      const starts: number[] = [0];
      for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
      const lineAt = (off: number) => {
        let lo = 0;
        let hi = starts.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (starts[mid]! <= off) lo = mid; else hi = mid - 1;
        }
        return lo;
      };
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        const a = lineAt(m.index);
        const b = lineAt(m.index + Math.max(0, m[0].length - 1));
        for (let k = a; k <= b; k++) hits.add(k);
        if (m[0].length === 0) re.lastIndex++;
      }
    } else {
      lines.forEach((l, k) => {
        if (re.test(l.replace(/\r$/, ""))) hits.add(k);
      });
    }
    if (hits.size === 0) continue;
    const shown = new Set<number>();
    for (const k of hits) for (let c = Math.max(0, k - q.context); c <= Math.min(lines.length - 1, k + q.context); c++) shown.add(c);
    for (const k of [...shown].sort((a, b) => a - b)) {
      out.push({ file, line: k + 1, text: lines[k]!.replace(/\r$/, ""), match: hits.has(k) });
    }
    if (out.length >= HARD_CAP) break;
  }
  return out;
}

/** One formatter for both backends. */
export function formatGrep(records: GrepRecord[], mode: GrepMode, limit: number, show: (abs: string) => string, context = 0): string {
  if (!records.some((r) => r.match)) return "no matches";
  if (mode === "files_with_matches" || mode === "count") {
    const counts = new Map<string, number>();
    for (const r of records) if (r.match) counts.set(r.file, (counts.get(r.file) ?? 0) + 1);
    const files = [...counts.keys()];
    const lines = files.slice(0, limit).map((f) => (mode === "count" ? `${show(f)}:${counts.get(f)}` : show(f)));
    if (files.length > limit) lines.push(`… ${files.length - limit} more files`);
    return lines.join("\n");
  }
  const lines: string[] = [];
  let prev: GrepRecord | null = null;
  let used = 0;
  for (const r of records) {
    if (used >= limit) break;
    if (context > 0 && prev && (prev.file !== r.file || r.line !== prev.line + 1)) lines.push("--");
    const text = r.text.length > 500 ? `${r.text.slice(0, 500)}…` : r.text;
    lines.push(`${show(r.file)}${r.match ? ":" : "-"}${r.line}${r.match ? ":" : "-"}${text}`);
    prev = r;
    used++;
  }
  if (records.length > used) {
    const moreMatches = records.slice(used).filter((r) => r.match).length;
    lines.push(`… output cut at ${limit} lines (${moreMatches} more matching lines); narrow the search or raise max_results`);
  }
  return lines.join("\n");
}

interface Input {
  pattern: string;
  path?: string;
  glob?: string;
  ignore_case?: boolean;
  output_mode?: GrepMode;
  context?: number;
  multiline?: boolean;
  max_results?: number;
}

/** Where ripgrep is, or null to use the built-in search. */
export function findRipgrep(env: NodeJS.ProcessEnv = process.env): string | null {
  return Bun.which("rg", { PATH: env.PATH ?? "" }) ?? null;
}

/** The grep tool's body with an explicit backend (null = built-in search). */
export function runGrep(input: Input, ctx: ToolContext, rg: string | null): Promise<ToolResult> {
  return guarded<Input>((i, c) => grepImpl(i, c, rg))(input, ctx);
}

async function grepImpl(input: Input, ctx: ToolContext, rg: string | null): Promise<ToolResult> {
  const pattern = str(input, "pattern");
  const path = str(input, "path", { optional: true }) || ".";
  const mode = (str(input, "output_mode", { optional: true }) || "content") as GrepMode;
  if (!["content", "files_with_matches", "count"].includes(mode)) throw new ToolInputError(`"output_mode" must be content, files_with_matches or count`);
  const d = checkRead(path, ctx);
  if (!d.allowed) return fail(d.reason);
  let st;
  try {
    st = statSync(d.path);
  } catch {
    return fail(`not found: ${display(d.path, ctx)}`);
  }
  const q: GrepQuery = {
    pattern,
    root: d.path,
    glob: str(input, "glob", { optional: true }) || undefined,
    ignoreCase: bool(input, "ignore_case"),
    multiline: bool(input, "multiline"),
    context: mode === "content" ? int(input, "context", { min: 0, def: 0 })! : 0,
  };
  const limit = int(input, "max_results", { min: 1, def: mode === "content" ? 200 : 500 })!;
  const policy = policyFor(ctx);
  const records = rg ? await grepWithRipgrep(rg, q, policy, ctx.signal) : grepBuiltin(q, policy);
  if (typeof records === "string") return fail(records);
  if (!st.isFile() && !st.isDirectory()) return fail(`${display(d.path, ctx)} is not a file or directory`);
  return done(formatGrep(records, mode, limit, (abs) => display(abs, ctx), q.context));
}

export const grepTool: ToolDefinition<Input> = {
  name: "grep",
  description:
    "Search file contents with a regular expression (ripgrep syntax). Honours .gitignore, skips hidden and binary files. output_mode: content (path:line:text, default), files_with_matches, or count. Filter files with glob (e.g. *.ts or !*.min.js); add context lines with context; multiline lets a match span lines.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "regular expression" },
      path: { type: "string", description: "file or directory to search (default: the workspace)" },
      glob: { type: "string", description: "only files matching this glob; prefix ! to exclude" },
      ignore_case: { type: "boolean" },
      output_mode: { type: "string", enum: ["content", "files_with_matches", "count"] },
      context: { type: "integer", minimum: 0, description: "lines of context around each match (content mode)" },
      multiline: { type: "boolean", description: "let the pattern match across lines" },
      max_results: { type: "integer", minimum: 1, description: "cap on output lines or files" },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  kind: "read",
  summarize: (i) => `grep ${JSON.stringify(i?.pattern ?? "")}${i?.path ? ` in ${i.path}` : ""}`,
  paths: (i) => [i?.path || "."],
  run: (input, ctx) => runGrep(input, ctx, findRipgrep()),
};
