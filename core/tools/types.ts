/** The contract between the agent loop and the tools it can call. */
import type { PathPolicy } from "../policy/paths.ts";

export type ToolKind =
  /** Reads only: may run in parallel, allowed without prompting in every mode but none. */
  | "read"
  /** Changes files through our own code (write/edit/move): confined in-process. */
  | "write"
  /** Runs a shell command: parsed for permissions, jailed by the OS sandbox. */
  | "bash"
  /** Talks only to the session (todo_write). */
  | "meta"
  /**
   * Runs on a server the user installed (an MCP tool without readOnlyHint):
   * installing was the authorization, so no per-call prompt; still blocked in
   * read-only and plan mode, and deny rules win.
   */
  | "external"
  /**
   * Reaches the network from the agent process (web_fetch): read-only, but
   * asks unless an allow rule such as `WebFetch(domain:example.com)` covers
   * every domain it names (or yolo mode); deny and ask rules win.
   */
  | "network";

export interface ToolResult {
  ok: boolean;
  /** What the model sees. */
  output: string;
  /** A short human receipt of what landed (writers), e.g. "edited a.ts (+3 −1)". */
  receipt?: string;
}

export interface ToolContext {
  /** Absolute, symlink-resolved workspace root. */
  workspace: string;
  sessionId: string;
  /** Session-private temp directory (exported as TMPDIR for bash). */
  tmpDir: string;
  signal: AbortSignal;
  /** Record a file's content before a writer changes it (checkpoint for rewind). */
  beforeWrite(absPath: string): Promise<void>;
  /** mtime+size the agent last saw for a path, to refuse writing over outside changes. */
  readStamps: Map<string, string>;
  /** Effective config values (see core/config/schema.ts). */
  config: Record<string, unknown>;
  /** Extra writable roots granted for this run (--add-dir). */
  extraWriteRoots: string[];
  emitTodo?(items: { content: string; status: "pending" | "in_progress" | "completed" }[]): void;
  /** Goal mode's side of the session, for update_goal and complete_step (core/goal). */
  goal?: import("../goal/types.ts").GoalToolPort;
  /** For tools with `awaitsLogItself`: resolves once the session log holding this call is on disk. */
  logSynced?: Promise<void>;
  /** The id of the tool call being run (set by the loop; subagents record it as their parent call). */
  callId?: string;
  /** Progress of a long call (MCP progress notifications), shown by front ends. */
  emitProgress?(p: { progress: number; total?: number; message?: string }): void;
  /** Ask the user the model's question (the `ask` tool) and wait; dismissed when no one can answer. */
  askUser?(q: import("../protocol/events.ts").Question): Promise<import("../protocol/events.ts").QuestionAnswer>;
  /** Ask the user for input on behalf of an MCP server (elicitation); declines when no one can answer. */
  elicit?(ask: import("../engine/types.ts").ElicitationAsk): Promise<import("../engine/types.ts").ElicitAnswer>;
  /**
   * The path policy file tools enforce. Optional: when absent the tools build
   * one from `config.sandbox`, `workspace` and `extraWriteRoots`.
   */
  pathPolicy?: PathPolicy;
  /**
   * File text through someone else than the local disk, e.g. an editor over
   * ACP (its unsaved buffers, its undo history). Paths are absolute and have
   * passed the path policy already; absent, the tools use the disk.
   */
  files?: FileIO;
  /** The session's background shell jobs (bash run_in_background, bash_output, bash_kill); absent where none can run. */
  jobs?: import("./jobs.ts").JobTable;
}

export interface FileIO {
  /** Current text of a file; null to read it from disk after all. */
  readText?(absPath: string): Promise<string | null>;
  /** Replace a file's text (the editor updates its buffer and saves it). */
  writeText?(absPath: string, text: string): Promise<void>;
}

export interface ToolDefinition<I = any> {
  name: string;
  description: string;
  /** JSON Schema of the input object, sent to the model verbatim. */
  inputSchema: Record<string, unknown>;
  kind: ToolKind;
  /**
   * Calls of this tool may run side by side with neighbouring calls of the
   * same round, as readers do (the `task` tool: its own scheduler bounds it).
   */
  parallel?: boolean;
  /**
   * A tool that is not a reader starts only once the session log holding its
   * call is on disk. With this set it starts at once and awaits
   * `ctx.logSynced` itself, right before it acts (bash: after building the
   * sandbox), so the log's flush overlaps its set-up.
   */
  awaitsLogItself?: boolean;
  /** One-line summary for approval prompts and logs. */
  summarize(input: I): string;
  /**
   * Paths this call reads or writes, as the model gave them (relative to the
   * workspace or absolute). Path-scoped rules such as `Edit(docs/**)` and
   * `Read(src/*)` match against these; a tool without it only matches bare names.
   */
  paths?(input: I): string[];
  /**
   * How much approval this call needs when that depends on the input (the
   * memory tools, core/memory/tools.ts): "free" needs no prompt in any mode,
   * "ask" is the kind's ordinary fallback, "always" asks even in auto mode
   * and past allow rules (only yolo skips it). Deny rules and mode blocks
   * come first either way; headless, an ask is a refusal.
   */
  approval?(input: I): { level: "free" | "ask" | "always"; reason: string };
  /** Network tools: the host names this call reaches, matched by `WebFetch(domain:…)` rules. */
  domains?(input: I): string[];
  run(input: I, ctx: ToolContext): Promise<ToolResult>;
}
