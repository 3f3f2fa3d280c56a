// Subagent test fixtures: one scripted LLM plays the parent and every child.
// A request is a child's when one of its user messages is a subagent's first
// message; the script for each role is picked by name and by how many tool
// results the conversation already holds.
import { existsSync } from "node:fs";
import { engineFor, makeSandbox, providerConfig, type Sandbox } from "../../engine/tests/helpers.ts";
import type { Engine } from "../../engine/types.ts";
import type { EngineOptions } from "../../engine/options.ts";
import { startScriptedOpenAI, type RecordedRequest, type ReplyStep, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { registerBuiltinTools } from "../../tools/builtin/index.ts";
import { ToolRegistry } from "../../tools/registry.ts";

export interface Turn {
  /** Who is asking: "parent", or the child's name (the task's description or profile name). */
  role: string;
  /** Tool results already in the conversation. */
  results: number;
  req: RecordedRequest;
}

const CHILD = /You are a subagent named "([^"]+)"/;

export function roleOf(req: RecordedRequest): string {
  for (const m of req.body?.messages ?? []) {
    if (m.role !== "user" || typeof m.content !== "string") continue;
    const hit = CHILD.exec(m.content);
    if (hit) return hit[1]!;
  }
  return "parent";
}

export const toolNames = (req: RecordedRequest): string[] => (req.body?.tools ?? []).map((t: { function: { name: string } }) => t.function.name).sort();

export interface World {
  sb: Sandbox;
  llm: ScriptedServer;
  engine: Engine;
  turns: Turn[];
  /** [start, end) of each request, by role, for overlap checks. */
  spans: { role: string; start: number; end: number }[];
  close(): Promise<void>;
}

/** Most requests of the given roles whose spans overlap at one instant. */
export function peakOverlap(spans: World["spans"], roles: (r: string) => boolean): number {
  const pts = spans.filter((s) => roles(s.role)).flatMap((s) => [[s.start, 1], [s.end, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let peak = 0;
  for (const [, d] of pts) peak = Math.max(peak, (cur += d));
  return peak;
}

export async function world(
  script: (t: Turn) => ReplyStep,
  o: { agent?: Record<string, unknown>; permissions?: Record<string, unknown>; sandbox?: Record<string, unknown>; headless?: boolean; mode?: EngineOptions["permissionMode"]; delayMs?: (t: Turn) => number } = {},
): Promise<World> {
  const sb = makeSandbox();
  const turns: Turn[] = [];
  const spans: World["spans"] = [];
  const route = (req: RecordedRequest): ReplyStep => {
    const t: Turn = { role: roleOf(req), results: (req.body?.messages ?? []).filter((m: { role: string }) => m.role === "tool").length, req };
    turns.push(t);
    const step = script(t);
    const delay = o.delayMs?.(t) ?? 0;
    const start = performance.now();
    spans.push({ role: t.role, start, end: start + delay });
    return delay ? { ...step, delayMs: delay } : step;
  };
  const llm = await startScriptedOpenAI(Array.from({ length: 200 }, () => route));
  const cfg = providerConfig(llm.url);
  cfg.agent = { ...(cfg.agent as object), ...(o.agent ?? {}) };
  cfg.permissions = { ...(cfg.permissions as object), ...(o.permissions ?? {}) };
  // Unconfined bash unless a test asks for the OS sandbox (subagent-sandbox.test.ts).
  cfg.sandbox = o.sandbox ?? { bash: "off" };
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  const engine = engineFor(sb, llm.url, { config: cfg, tools, headless: o.headless ?? true, permissionMode: o.mode ?? "auto", mcp: false } as never);
  return {
    sb, llm, engine, turns, spans,
    async close() {
      await engine.close();
      await llm.close();
      sb.cleanup();
    },
  };
}

export const exists = (p: string) => existsSync(p);

export const call = (name: string, args: Record<string, unknown>, id?: string): ReplyStep => ({ toolCalls: [{ ...(id ? { id } : {}), name, arguments: args }] });
export const text = (t: string): ReplyStep => ({ text: t });
