/** Helpers shared by the built-in tools: path policy, input checks, results. */
import { closeSync, constants, openSync, readSync, statSync, type Stats } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import { expandTilde } from "../../home.ts";
import { createPathPolicy, type PathDecision, type PathPolicy, type SandboxConfig } from "../../policy/paths.ts";
import { gitGuardAfterWrite } from "../../sandbox/git-guard.ts";
import type { ToolContext, ToolResult } from "../types.ts";

/** A tool input that failed validation; turned into a failed ToolResult. */
export class ToolInputError extends Error {}

export const fail = (output: string): ToolResult => ({ ok: false, output });
export const done = (output: string, receipt?: string): ToolResult => (receipt ? { ok: true, output, receipt } : { ok: true, output });

const policies = new WeakMap<object, Map<string, PathPolicy>>();

/** The path policy for this context (the engine's, or one built from config and cached per config object). */
export function policyFor(ctx: ToolContext): PathPolicy {
  if (ctx.pathPolicy) return ctx.pathPolicy;
  const sandbox = (ctx.config.sandbox ?? {}) as SandboxConfig;
  const key = JSON.stringify([ctx.workspace, ctx.extraWriteRoots, sandbox.workspace_root, sandbox.allow_write, sandbox.forbid_read, process.env.REASONIX_HOME]);
  let byKey = policies.get(ctx.config);
  if (!byKey) policies.set(ctx.config, (byKey = new Map()));
  let p = byKey.get(key);
  if (!p) {
    p = createPathPolicy({ config: sandbox, cwd: ctx.workspace, extraWrite: ctx.extraWriteRoots });
    byKey.set(key, p);
  }
  return p;
}

/**
 * The absolute (not yet resolved) form of a path the model gave: relative
 * paths are taken from the workspace. Deliberately no normalisation, so the
 * policy sees `..` after any symlink the way the kernel would.
 */
export function absoluteInput(p: string, ctx: ToolContext): string {
  const t = expandTilde(p);
  return isAbsolute(t) ? t : `${ctx.workspace}${sep}${t}`;
}

export function checkRead(p: string, ctx: ToolContext): PathDecision {
  return policyFor(ctx).checkRead(absoluteInput(p, ctx));
}

export function checkWrite(p: string, ctx: ToolContext): PathDecision {
  return policyFor(ctx).checkWrite(absoluteInput(p, ctx));
}

/** How a path is shown to the model: relative to the workspace when inside it. */
export function display(abs: string, ctx: ToolContext): string {
  const rel = relative(ctx.workspace, abs);
  if (rel === "") return ".";
  return rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
}

export function statOrNull(p: string): Stats | null {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/** What readStamps stores: enough to notice an outside change. */
export const stampOf = (st: Stats): string => `${st.mtimeMs}:${st.size}`;

export function str(input: unknown, key: string, opts: { optional?: boolean; allowEmpty?: boolean } = {}): string {
  const v = (input as Record<string, unknown> | null)?.[key];
  if (v === undefined || v === null) {
    if (opts.optional) return "";
    throw new ToolInputError(`missing required field "${key}"`);
  }
  if (typeof v !== "string") throw new ToolInputError(`"${key}" must be a string`);
  if (!opts.allowEmpty && !opts.optional && v === "") throw new ToolInputError(`"${key}" must not be empty`);
  return v;
}

export function int(input: unknown, key: string, opts: { min?: number; def?: number } = {}): number | undefined {
  const v = (input as Record<string, unknown> | null)?.[key];
  if (v === undefined || v === null) return opts.def;
  if (typeof v !== "number" || !Number.isInteger(v)) throw new ToolInputError(`"${key}" must be an integer`);
  if (opts.min !== undefined && v < opts.min) throw new ToolInputError(`"${key}" must be at least ${opts.min}`);
  return v;
}

export function bool(input: unknown, key: string): boolean {
  const v = (input as Record<string, unknown> | null)?.[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") throw new ToolInputError(`"${key}" must be true or false`);
  return v;
}

/** Wrap a tool body so bad input and unexpected errors become failed results, never crashes. */
export function guarded<I>(fn: (input: I, ctx: ToolContext) => Promise<ToolResult>) {
  return async (input: I, ctx: ToolContext): Promise<ToolResult> => {
    try {
      return await fn(input, ctx);
    } catch (e) {
      if (e instanceof ToolInputError) return fail(`invalid input: ${e.message}`);
      const err = e as NodeJS.ErrnoException;
      if (err?.code === "EACCES" || err?.code === "EPERM") return fail(`permission denied: ${err.path ?? err.message}`);
      if (err?.code === "ENOSPC") return fail("no space left on device");
      return fail(err instanceof Error ? err.message : String(e));
    }
  };
}

/**
 * `guarded` for tools that write files: afterwards, the planted-git-state
 * check (core/sandbox/git-guard.ts) looks at the directories whose mtime
 * moved, and what it moved aside is said in the result.
 */
export function guardedWrite<I>(fn: (input: I, ctx: ToolContext) => Promise<ToolResult>) {
  const body = guarded(fn);
  return async (input: I, ctx: ToolContext): Promise<ToolResult> => {
    const since = Date.now();
    const res = await body(input, ctx);
    const moved = gitGuardAfterWrite(policyFor(ctx).writeRoots, since);
    if (moved.length === 0) return res;
    const notes = moved.map((m) => `[git state: ${m.path} would make git run code on the host; it was moved aside to ${m.movedTo}]`);
    return { ...res, output: [res.output, ...notes].join("\n") };
  };
}

/**
 * Read a file of at most MAX bytes without ever blocking: kernel files such as
 * /proc/kmsg report size 0 and never end, and a path can turn into a FIFO
 * after it was checked. Opened non-blocking, such a read stops at "no data
 * yet" instead of stalling the whole agent. Null when the file exceeds MAX.
 */
export function readBounded(path: string, max: number): Buffer | null {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EAGAIN") break;
        throw e;
      }
      if (n === 0) break;
      total += n;
      if (total > max) return null;
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks);
  } finally {
    closeSync(fd);
  }
}

/** A NUL byte in the first 8 KiB means binary (the same heuristic git and grep use). */
export function looksBinary(buf: Uint8Array): boolean {
  const n = Math.min(buf.length, 8192);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

export { plural } from "../../plural.ts";

export function countLines(s: string): number {
  if (s === "") return 0;
  const n = s.split("\n").length;
  return s.endsWith("\n") ? n - 1 : n;
}

export function humanSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
