// Shared fixtures for engine tests: a throw-away $REASONIX_HOME and workspace,
// and small real tools (they touch real files) for driving the loop.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { createEngine } from "../index.ts";
import type { Engine, EngineEvent, EngineSession } from "../types.ts";
import type { EngineOptions } from "../options.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import type { ToolDefinition } from "../../tools/types.ts";

export interface Sandbox {
  home: string;
  workspace: string;
  cleanup(): void;
}

export function makeSandbox(): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "reasonix-engine-test-")));
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  return { home, workspace, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export function providerConfig(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    default_model: "scripted",
    providers: [{ name: "scripted", kind: "openai", base_url: url, model: "scripted-model", api_key_env: "SCRIPTED_KEY", ...extra }],
    agent: { max_steps: 10, compact_ratio: 0.8 },
    permissions: { mode: "ask", allow: [], ask: [], deny: [] },
    tools: {},
    sandbox: {},
  };
}

const abs = (ws: string, p: string) => (isAbsolute(p) ? p : resolve(ws, p));

/** Minimal real tools: read, write (with checkpoint) and a slow reader for parallelism checks. */
export function testTools(log: string[] = []): ToolRegistry {
  const r = new ToolRegistry();
  const read: ToolDefinition<{ path: string }> = {
    name: "read_file",
    description: "Read a file",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    kind: "read",
    summarize: (i) => i.path,
    paths: (i) => [i.path],
    async run(i, ctx) {
      const p = abs(ctx.workspace, i.path);
      if (!existsSync(p)) return { ok: false, output: `no such file: ${i.path}` };
      return { ok: true, output: readFileSync(p, "utf8") };
    },
  };
  const write: ToolDefinition<{ path: string; content: string }> = {
    name: "write_file",
    description: "Write a file",
    inputSchema: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] },
    kind: "write",
    summarize: (i) => `write ${i.path}`,
    paths: (i) => [i.path],
    async run(i, ctx) {
      const p = abs(ctx.workspace, i.path);
      await ctx.beforeWrite(p);
      log.push(`write ${i.path}`);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, i.content);
      return { ok: true, output: `wrote ${i.path}`, receipt: `wrote ${i.path} (${i.content.length} bytes)` };
    },
  };
  const slow: ToolDefinition<{ name: string; ms: number }> = {
    name: "slow_read",
    description: "A read that takes a while",
    inputSchema: { type: "object", properties: { name: { type: "string" }, ms: { type: "number" } } },
    kind: "read",
    summarize: (i) => i.name,
    async run(i) {
      log.push(`start ${i.name}`);
      await new Promise((res) => setTimeout(res, i.ms));
      log.push(`end ${i.name}`);
      return { ok: true, output: `slept ${i.name}` };
    },
  };
  const append: ToolDefinition<{ path: string; text: string }> = {
    name: "append_file",
    description: "Append to a file",
    inputSchema: { type: "object", properties: { path: { type: "string" }, text: { type: "string" } } },
    kind: "write",
    summarize: (i) => `append ${i.path}`,
    paths: (i) => [i.path],
    async run(i, ctx) {
      const p = abs(ctx.workspace, i.path);
      await ctx.beforeWrite(p);
      writeFileSync(p, (existsSync(p) ? readFileSync(p, "utf8") : "") + i.text);
      return { ok: true, output: "appended" };
    },
  };
  r.register(read);
  r.register(write);
  r.register(slow);
  r.register(append);
  return r;
}

export function engineFor(sb: Sandbox, url: string, opts: Partial<EngineOptions> & { providerExtra?: Record<string, unknown>; key?: string } = {}): Engine {
  writeFileSync(join(sb.home, ".env"), `SCRIPTED_KEY=${opts.key ?? "sk-test-123"}\n`, { mode: 0o600 });
  return createEngine({
    workspace: sb.workspace,
    home: sb.home,
    config: (opts.config as Record<string, unknown>) ?? providerConfig(url, opts.providerExtra),
    tools: opts.tools ?? testTools(),
    retry: { baseDelayMs: 5, maxDelayMs: 20, ...(opts.retry ?? {}) },
    headless: opts.headless,
    permissionMode: opts.permissionMode ?? "auto",
    maxSteps: opts.maxSteps,
    extraWriteRoots: opts.extraWriteRoots,
    onSessionOpen: opts.onSessionOpen,
  });
}

export function collect(session: { subscribe(l: (e: EngineEvent) => void): () => void }): EngineEvent[] {
  const events: EngineEvent[] = [];
  session.subscribe((e) => events.push(e));
  return events;
}

/** A chat request that asks for a compaction summary (the last message is the compaction request). */
export const isCompactionRequest = (req: { body: any }) => String(req.body.messages.at(-1)?.content).includes("<compaction-request>");

/**
 * Hold the session's next turn where its loop has decided the turn is over:
 * its turn_end record is appended and the sync of the log waits for
 * `release`. `atEnd` resolves once the turn is held there (a state the turn
 * causes: no timing involved). Resolve `release` in the test's cleanup too.
 */
export function holdTurnEnd(s: unknown) {
  const file = (s as { file: { flushed(): Promise<void>; records: { t: string }[] } }).file;
  const sync = file.flushed.bind(file);
  const atEnd = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  let held = false;
  file.flushed = async () => {
    await sync();
    if (held || file.records.at(-1)?.t !== "turn_end") return;
    held = true;
    atEnd.resolve();
    await release.promise;
  };
  return { atEnd, release };
}

/** Resolves with the session's first event from now on that `pred` accepts. */
export const until = (s: EngineSession, pred: (e: EngineEvent) => boolean) =>
  new Promise<EngineEvent>((resolve) => {
    const off = s.subscribe((e) => {
      if (pred(e)) {
        off();
        resolve(e);
      }
    });
  });
