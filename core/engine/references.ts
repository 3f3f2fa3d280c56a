/**
 * `@` references in a typed message: `@path/to/file` (optionally
 * `:10-20` or `#L10-20`) attaches the file with line numbers, `@dir/` a
 * one-level listing, `@<server>:<uri>` an MCP resource. A reference is
 * resolved only when it names something that exists and may be read, so
 * ordinary @mentions stay literal. The message keeps the user's text; the
 * attachments follow it as tagged blocks.
 */
import { readdirSync, realpathSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { isWithin, type PathPolicy } from "../policy/paths.ts";
import { IgnoreStack } from "../tools/gitignore.ts";
import { looksBinary, readBounded } from "../tools/builtin/common.ts";

const MAX_FILE_BYTES = 256 * 1024;
const MAX_LINES = 2000;
const MAX_LINE_CHARS = 2000;
const MAX_DIR_ENTRIES = 200;
const MAX_REFS = 20;
const HIDDEN = new Set([".git", "node_modules"]);

export interface ReferenceOptions {
  workspace: string;
  /** forbid_read and Reasonix state are refused through it. */
  policy?: PathPolicy;
  /** Extra veto (e.g. a deny rule for read_file): a reason string refuses. */
  canRead?(abs: string): true | string;
  /** An MCP resource `server:uri` (undefined when no such server). */
  mcpResource?(server: string, uri: string, signal?: AbortSignal): Promise<string | undefined>;
  signal?: AbortSignal;
}

export interface ResolvedReference {
  token: string;
  kind: "file" | "dir" | "mcp";
  target: string;
}

export interface ReferenceResult {
  /** The message: the text as typed, then the attachments (unchanged when none resolved). */
  content: string;
  refs: ResolvedReference[];
  /** References that named something real but were refused (policy, size), with why. */
  refused: { token: string; reason: string }[];
}

const TOKEN = /(^|[\s(])@([^\s@]+)/g;
const TRAILING = /[.,;:!?)\]}'"]+$/;
const RANGE = /^(.*?)(?::(\d+)(?:-(\d+))?|#L(\d+)(?:-L?(\d+))?)$/;

const display = (abs: string, ws: string) => (abs === ws ? "." : isWithin(abs, ws) ? relative(ws, abs).split(sep).join("/") : abs);

function statOf(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

function numbered(text: string, from: number, to: number | undefined): { body: string; range: string } {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const first = Math.max(1, from);
  const last = Math.min(lines.length, to ?? lines.length, first - 1 + MAX_LINES);
  const width = Math.max(4, String(last).length);
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    let line = lines[n - 1]!.replace(/\r$/, "");
    if (line.length > MAX_LINE_CHARS) line = `${line.slice(0, MAX_LINE_CHARS)}… [line truncated]`;
    out.push(`${String(n).padStart(width)}\t${line}`);
  }
  const wanted = Math.min(lines.length, to ?? lines.length);
  if (last < wanted) out.push(`[… ${wanted - last} more lines; read them with read_file offset=${last + 1}]`);
  return { body: out.join("\n"), range: `${first}-${last}` };
}

/** One level of a directory, folders first, .gitignore respected. */
export function listLevel(dirAbs: string, opts: { hidden?: boolean; policy?: PathPolicy; max?: number } = {}): { name: string; dir: boolean }[] {
  let entries;
  try {
    entries = readdirSync(dirAbs, { withFileTypes: true });
  } catch {
    return [];
  }
  const ignore = IgnoreStack.forRoot(dirAbs, { gitignore: true });
  const out: { name: string; dir: boolean }[] = [];
  for (const e of entries) {
    if (HIDDEN.has(e.name) || (!opts.hidden && e.name.startsWith("."))) continue;
    const abs = join(dirAbs, e.name);
    const dir = e.isDirectory() || (e.isSymbolicLink() && !!statOf(abs)?.isDirectory());
    if (ignore.ignored(e.name, dir)) continue;
    if (opts.policy && !opts.policy.checkRead(abs).allowed) continue;
    out.push({ name: e.name, dir });
  }
  out.sort((a, b) => Number(b.dir) - Number(a.dir) || a.name.localeCompare(b.name));
  return out.slice(0, opts.max ?? MAX_DIR_ENTRIES);
}

/**
 * Completion of `@prefix`: entries of one directory level of the workspace
 * (never outside it), `.gitignore`d and policy-hidden ones left out. Values
 * are what replaces the token, e.g. `@src/` or `@src/main.ts`.
 */
export function completeReference(workspace: string, prefix: string, policy?: PathPolicy, max = 50): { value: string; label: string; dir: boolean }[] {
  const rel = prefix.replace(/^@/, "");
  const cut = rel.lastIndexOf("/");
  const dir = cut >= 0 ? rel.slice(0, cut + 1) : "";
  const partial = (cut >= 0 ? rel.slice(cut + 1) : rel).toLowerCase();
  const abs = resolve(workspace, dir);
  if (!isWithin(abs, workspace)) return [];
  return listLevel(abs, { hidden: partial.startsWith("."), policy, max: 10_000 })
    .filter((e) => e.name.toLowerCase().startsWith(partial))
    .slice(0, max)
    .map((e) => ({ value: `@${dir}${e.name}${e.dir ? "/" : ""}`, label: `${e.name}${e.dir ? "/" : ""}`, dir: e.dir }));
}

interface Candidate {
  path: string;
  from?: number;
  to?: number;
}

/** The ways a token can be read as a path (with and without trailing punctuation and a line range). */
function candidates(raw: string): Candidate[] {
  const out: Candidate[] = [];
  for (const t of new Set([raw, raw.replace(TRAILING, "")])) {
    if (!t) continue;
    out.push({ path: t });
    const m = RANGE.exec(t);
    if (m && m[1]) {
      const from = Number(m[2] ?? m[4]);
      const to = m[3] ?? m[5];
      out.push({ path: m[1], from, to: to !== undefined ? Number(to) : from });
    }
  }
  return out;
}

/** Resolve the @references of `text` (at most 20; repeats once). */
export async function resolveReferences(text: string, o: ReferenceOptions): Promise<ReferenceResult> {
  const blocks: string[] = [];
  const refs: ResolvedReference[] = [];
  const refused: { token: string; reason: string }[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(TOKEN)) {
    if (refs.length >= MAX_REFS) break;
    const raw = m[2]!;
    let hit = false;
    for (const c of candidates(raw)) {
      const abs = resolve(o.workspace, c.path);
      const st = statOf(abs);
      if (!st || (!st.isFile() && !st.isDirectory())) continue;
      hit = true;
      const key = `${abs}:${c.from ?? ""}-${c.to ?? ""}`;
      if (seen.has(key)) break;
      seen.add(key);
      const shown = display(abs, o.workspace);
      const policy = o.policy?.checkRead(abs);
      const outside = !isWithin(realpathSync(abs), o.workspace) ? `${shown} is outside the workspace; read it with read_file` : undefined;
      const veto = outside ?? (policy && !policy.allowed ? policy.reason : o.canRead?.(abs));
      if (typeof veto === "string") {
        refused.push({ token: `@${raw}`, reason: veto });
        break;
      }
      if (st.isDirectory()) {
        const list = listLevel(abs, { policy: o.policy });
        blocks.push(`<directory path="${shown}/">\n${list.map((e) => `${e.name}${e.dir ? "/" : ""}`).join("\n") || "(empty)"}\n</directory>`);
        refs.push({ token: `@${raw}`, kind: "dir", target: shown });
        break;
      }
      const buf = st.size <= MAX_FILE_BYTES * 4 ? readBounded(abs, MAX_FILE_BYTES * 4) : null;
      if (!buf) {
        refused.push({ token: `@${raw}`, reason: `${shown} is larger than ${MAX_FILE_BYTES * 4} bytes; read parts of it with read_file` });
        break;
      }
      if (looksBinary(buf)) {
        blocks.push(`<file path="${shown}">\n(binary file, ${buf.length} bytes; not shown)\n</file>`);
      } else {
        const n = numbered(buf.toString("utf8"), c.from ?? 1, c.to);
        blocks.push(`<file path="${shown}" lines="${n.range}">\n${n.body}\n</file>`);
      }
      refs.push({ token: `@${raw}`, kind: "file", target: shown });
      break;
    }
    if (hit || !o.mcpResource) continue;
    const mcp = /^([A-Za-z0-9_.-]+):(.+)$/.exec(raw.replace(TRAILING, ""));
    if (!mcp) continue;
    const body = await o.mcpResource(mcp[1]!, mcp[2]!, o.signal);
    if (body === undefined) continue;
    blocks.push(`<resource server="${mcp[1]}" uri="${mcp[2]}">\n${body}\n</resource>`);
    refs.push({ token: `@${raw}`, kind: "mcp", target: `${mcp[1]}:${mcp[2]}` });
  }
  if (refused.length) blocks.push(...refused.map((r) => `<reference-refused token="${r.token}">${r.reason}</reference-refused>`));
  return { content: blocks.length ? `${text}\n\n${blocks.join("\n")}` : text, refs, refused };
}
