// Shared pieces of the engine benchmarks (scripts/bench/engine*.ts): a
// throw-away home and workspace, a registry holding one no-op tool, and the
// bare streamed exchange with a scripted server that stands for a model's own
// time in each measurement.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolKind } from "../../core/tools/types.ts";
import { ToolRegistry } from "../../core/tools/registry.ts";

export const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

export interface BenchDirs {
  dir: string;
  home: string;
  ws: string;
  cleanup(): void;
}

/** A temp dir with home/ (its .env holds BENCH_KEY, mode 0600) and ws/. */
export function benchDirs(prefix: string): BenchDirs {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const home = join(dir, "home");
  const ws = join(dir, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(home, ".env"), "BENCH_KEY=sk-bench\n", { mode: 0o600 });
  return { dir, home, ws, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A registry with one tool that does nothing and answers "ok". */
export function noopTools(tool: { name: string; description: string; kind: ToolKind; properties?: Record<string, unknown>; summarize?: (input: any) => string }): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register({
    name: tool.name,
    description: tool.description,
    inputSchema: { type: "object", properties: tool.properties ?? {} },
    kind: tool.kind,
    summarize: tool.summarize ?? (() => tool.name),
    run: async () => ({ ok: true, output: "ok" }),
  });
  return tools;
}

/** A plain fetch client: each call is one streamed chat completion from a scripted server, read to the last byte. */
export function bareClient(url: string, model: string): () => Promise<void> {
  const body = JSON.stringify({ model, messages: [{ role: "user", content: "x" }], stream: true });
  return async () => {
    await (await fetch(`${url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body })).text();
  };
}
