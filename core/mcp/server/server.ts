/**
 * `reasonix mcp serve`: Reasonix as an MCP server, so another agent (Codex,
 * Claude Code, any MCP client) can hand it work. Tools: reasonix_run,
 * reasonix_resume, reasonix_cancel, reasonix_events, reasonix_rollback,
 * reasonix_status. Read-only permission mode by default; modes that change
 * files need --allow-writes ([mcp_server] allow_writes in the user config).
 * Failures are MCP tool errors carrying the CLI's message and hint.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { createEngine } from "../../engine/engine.ts";
import type { Engine, PermissionMode } from "../../engine/types.ts";
import type { EngineOptions } from "../../engine/options.ts";
import { PERMISSION_MODES, REWIND_MODES, type RewindMode } from "../../protocol/modes.ts";
import { ReasonixError, errorMessage } from "../../errors.ts";
import { realWorkspace } from "../../trust/index.ts";
import { trustReport } from "../../trust/report.ts";
import { buildInfo } from "../../version.ts";
import { TaskBoard } from "./tasks.ts";

export interface ServeOptions {
  /** Default workspace (the directory `mcp serve` was started in). */
  workspace: string;
  home?: string;
  allowWrites: boolean;
  /** Every session this server opens (usage counters, core/telemetry). */
  onSessionOpen?: EngineOptions["onSessionOpen"];
}

/**
 * Longest long-poll of reasonix_events. MCP clients commonly give a request
 * 60 s (the SDK's DEFAULT_REQUEST_TIMEOUT_MSEC), so a poll must answer well
 * before that or it always fails on a quiet session.
 */
export const EVENTS_MAX_WAIT_SECONDS = 50;

const MODES: readonly string[] = PERMISSION_MODES;
const str = (d: string) => ({ type: "string", description: d });

export const TOOLS: Tool[] = [
  {
    name: "reasonix_run",
    description: "Start a Reasonix task (a new session) in a workspace and return its session id at once; follow it with reasonix_events.",
    inputSchema: {
      type: "object",
      properties: {
        prompt: str("what to do"),
        workspace: str("directory to work in (default: the server's)"),
        model: str("provider entry name (default: default_model)"),
        mode: { type: "string", enum: MODES, description: "permission mode (default read-only; every other mode needs --allow-writes)" },
      },
      required: ["prompt"],
    },
  },
  {
    name: "reasonix_resume",
    description: "Run another turn in an existing session (one this server started, or a stored one).",
    inputSchema: { type: "object", properties: { session_id: str("session id"), prompt: str("the next instruction"), workspace: str("its workspace (default: the server's)"), mode: { type: "string", enum: MODES } }, required: ["session_id", "prompt"] },
  },
  {
    name: "reasonix_cancel",
    description: "Cancel the running turn of a session.",
    inputSchema: { type: "object", properties: { session_id: str("session id") }, required: ["session_id"] },
  },
  {
    name: "reasonix_events",
    description: `Events of a session after sequence number \`since\` (default 0); waits up to timeout_seconds (at most ${EVENTS_MAX_WAIT_SECONDS}; more is capped) for the first new one. A turn is over at its turn_end event.`,
    inputSchema: { type: "object", properties: { session_id: str("session id"), since: { type: "integer", minimum: 0 }, timeout_seconds: { type: "number", minimum: 0, maximum: EVENTS_MAX_WAIT_SECONDS } }, required: ["session_id"] },
  },
  {
    name: "reasonix_rollback",
    description: "Go back to just before a turn: restore files (code), the conversation, or both.",
    inputSchema: { type: "object", properties: { session_id: str("session id"), turn: { type: "integer", minimum: 1 }, mode: { type: "string", enum: REWIND_MODES } }, required: ["session_id", "turn"] },
  },
  {
    name: "reasonix_status",
    description: "This server's sessions, the models it can use, its version, write policy and the workspace's trust state.",
    inputSchema: { type: "object", properties: { workspace: str("workspace to report on (default: the server's)") } },
  },
];

const ok = (value: unknown): CallToolResult => ({ content: [{ type: "text", text: JSON.stringify(value, null, 2) }], structuredContent: value as Record<string, unknown> });
const fail = (e: unknown): CallToolResult => {
  const hint = e instanceof ReasonixError && e.hint ? ` (${e.hint})` : "";
  return { isError: true, content: [{ type: "text", text: `error: ${errorMessage(e)}${hint}` }] };
};

/** The shared state (engines, sessions) and a factory of protocol servers over it (one per HTTP session). */
export function createReasonixMcpServer(o: ServeOptions): { server: Server; newServer(): Server; close(): Promise<void> } {
  const engines = new Map<string, Engine>();
  const engineFor = (workspace: string): Engine => {
    let e = engines.get(workspace);
    if (!e) {
      e = createEngine({ workspace, home: o.home, headless: true, permissionMode: "read-only", onSessionOpen: o.onSessionOpen });
      engines.set(workspace, e);
    }
    return e;
  };
  const board = new TaskBoard({ engineFor, allowWrites: o.allowWrites });
  const dir = (raw: unknown): string => {
    const p = typeof raw === "string" && raw ? (isAbsolute(raw) ? raw : resolve(o.workspace, raw)) : o.workspace;
    if (!existsSync(p) || !statSync(p).isDirectory()) throw new ReasonixError("workspace", `workspace ${p} is not a directory`);
    return realWorkspace(p);
  };
  const newServer = (): Server => {
  const server = new Server({ name: "reasonix", version: buildInfo().version }, { capabilities: { tools: {} }, instructions: "Delegate coding tasks to Reasonix: reasonix_run starts one, reasonix_events follows it until turn_end." });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const a = (req.params.arguments ?? {}) as Record<string, unknown>;
    const need = (k: string): string => {
      if (typeof a[k] !== "string" || !a[k]) throw new ReasonixError("usage", `${req.params.name}: "${k}" is required`);
      return a[k] as string;
    };
    // `mode` is a permission mode for run/resume (rollback has its own).
    const mode = a.mode === undefined || req.params.name === "reasonix_rollback" ? undefined : (String(a.mode) as PermissionMode);
    if (mode !== undefined && !MODES.includes(mode)) return fail(new ReasonixError("usage", `mode must be one of ${MODES.join(", ")}`));
    try {
      switch (req.params.name) {
        case "reasonix_run":
          return ok(await board.run({ workspace: dir(a.workspace), prompt: need("prompt"), model: typeof a.model === "string" ? a.model : undefined, mode }));
        case "reasonix_resume":
          return ok(await board.resume({ workspace: dir(a.workspace), sessionId: need("session_id"), prompt: need("prompt"), mode }));
        case "reasonix_cancel":
          return ok(board.cancel(need("session_id")));
        case "reasonix_events": {
          const asked = Number(a.timeout_seconds ?? 0);
          const wait = Number.isFinite(asked) && asked > 0 ? Math.min(asked, EVENTS_MAX_WAIT_SECONDS) : 0;
          return ok({ ...(await board.events(need("session_id"), Number(a.since ?? 0), wait * 1000, extra.signal)), wait_seconds: wait });
        }
        case "reasonix_rollback": {
          const m = (a.mode ?? "both") as RewindMode;
          if (!REWIND_MODES.includes(m)) throw new ReasonixError("usage", "mode must be code, conversation or both");
          return ok(await board.rollback(need("session_id"), Number(a.turn), m));
        }
        case "reasonix_status": {
          const ws = dir(a.workspace);
          const t = trustReport(ws, o.home);
          return ok({
            version: buildInfo().version,
            workspace: ws,
            allow_writes: o.allowWrites,
            trust: { trusted: t.trusted, inputs: t.inputs.map((i) => ({ path: i.rel, status: i.status })) },
            models: engineFor(ws).models(),
            sessions: board.list(),
          });
        }
        default:
          return fail(new ReasonixError("usage", `unknown tool ${req.params.name}`));
      }
    } catch (e) {
      return fail(e);
    }
  });
  return server;
  };
  return {
    server: newServer(),
    newServer,
    async close() {
      await board.close();
      await Promise.all([...engines.values()].map((e) => e.close()));
    },
  };
}
