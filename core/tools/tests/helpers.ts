import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createPathPolicy, type SandboxConfig } from "../../policy/paths.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../types.ts";

export interface Fixture {
  ws: string;
  home: string;
  /** A directory outside every write root. */
  outside: string;
  ctx: ToolContext;
  /** Paths passed to beforeWrite, with the content each had at that moment (null = did not exist). */
  checkpoints: { path: string; content: string | null }[];
  todos: unknown[];
  write(rel: string, content: string | Uint8Array): string;
  read(rel: string): string;
  run(tool: ToolDefinition, input: unknown): Promise<ToolResult>;
  cleanup(): void;
}

export function fixture(opts: { sandbox?: SandboxConfig; extraWriteRoots?: string[]; config?: Record<string, unknown> } = {}): Fixture {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "rx-tools-")));
  const ws = join(base, "ws");
  const home = join(base, "home");
  const outside = join(base, "outside");
  for (const d of [ws, home, outside]) mkdirSync(d);
  const sandbox = opts.sandbox ?? {};
  const checkpoints: Fixture["checkpoints"] = [];
  const todos: unknown[] = [];
  const ctx: ToolContext = {
    workspace: ws,
    sessionId: "test-session",
    tmpDir: join(base, "session-tmp"),
    signal: new AbortController().signal,
    beforeWrite: async (p: string) => {
      let content: string | null = null;
      try {
        content = readFileSync(p, "utf8");
      } catch {}
      checkpoints.push({ path: p, content });
    },
    readStamps: new Map(),
    config: { sandbox, tools: {}, ...opts.config },
    extraWriteRoots: opts.extraWriteRoots ?? [],
    emitTodo: (items) => todos.push(items),
    pathPolicy: createPathPolicy({ config: sandbox, cwd: ws, extraWrite: opts.extraWriteRoots, reasonixHome: home }),
  };
  return {
    ws, home, outside, ctx, checkpoints, todos,
    write(rel, content) {
      const p = rel.startsWith("/") ? rel : join(ws, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, content);
      return p;
    },
    read: (rel) => readFileSync(rel.startsWith("/") ? rel : join(ws, rel), "utf8"),
    run: (tool, input) => tool.run(input, ctx),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}
