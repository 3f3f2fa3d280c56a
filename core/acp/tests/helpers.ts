// ACP test support: a throw-away $REASONIX_HOME + workspace wired to a scripted
// LLM, the agent served in-process on real NDJSON byte streams, and a scripted
// editor built on the SDK's own ClientSideConnection.
import * as acp from "@agentclientprotocol/sdk";
import { afterEach } from "bun:test";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { makeScriptedHome } from "../../testing/scripted-home.ts";
import { createAcpAgent } from "../agent.ts";
import type { AcpLog } from "../log.ts";

export interface AcpEnv {
  home: string;
  workspace: string;
  cleanup(): void;
}

export function makeAcpEnv(llmUrl: string, extraToml = ""): AcpEnv {
  const other = ["[[providers]]", 'name = "other"', 'kind = "openai"', `base_url = "${llmUrl}"`, 'model = "other-model"', 'api_key_env = "SCRIPTED_KEY"'];
  return makeScriptedHome(llmUrl, { prefix: "reasonix-acp-test-", key: "sk-acp-test", extraToml: ["context_window = 64000", ...other, extraToml].join("\n") });
}

export const quietLog = (lines: string[] = []): AcpLog => ({ info: (m) => void lines.push(m), error: (m) => void lines.push(`error: ${m}`) });

/** A scripted editor: records every update, answers permissions and fs/terminal calls as told. */
export class ScriptedEditor implements acp.Client {
  updates: acp.SessionNotification[] = [];
  permissionRequests: acp.RequestPermissionRequest[] = [];
  /** optionId to pick, "cancelled", or a function deciding per request. */
  answer: string | ((r: acp.RequestPermissionRequest) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>) = "allow_once";
  /** Unsaved buffers by absolute path (fs/read_text_file answers from here first). */
  buffers = new Map<string, string>();
  writes: acp.WriteTextFileRequest[] = [];
  reads: acp.ReadTextFileRequest[] = [];
  terminals: acp.CreateTerminalRequest[] = [];
  elicitations: acp.CreateElicitationRequest[] = [];
  /** How the editor's user answers an input form (elicitation/create). */
  elicitAnswer: (r: acp.CreateElicitationRequest) => acp.CreateElicitationResponse | Promise<acp.CreateElicitationResponse> = () => ({ action: "decline" });
  private waiters: { pred: (u: acp.SessionNotification) => boolean; resolve: () => void }[] = [];

  async requestPermission(p: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> {
    this.permissionRequests.push(p);
    if (typeof this.answer === "function") return this.answer(p);
    if (this.answer === "cancelled") return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: this.answer } };
  }

  async createElicitation(p: acp.CreateElicitationRequest): Promise<acp.CreateElicitationResponse> {
    this.elicitations.push(p);
    return this.elicitAnswer(p);
  }

  async sessionUpdate(p: acp.SessionNotification): Promise<void> {
    this.updates.push(p);
    this.waiters = this.waiters.filter((w) => {
      if (!w.pred(p)) return true;
      w.resolve();
      return false;
    });
  }

  async readTextFile(p: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    this.reads.push(p);
    const b = this.buffers.get(p.path);
    if (b === undefined) throw acp.RequestError.resourceNotFound(p.path);
    return { content: b };
  }

  async writeTextFile(p: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
    // An editor keeps the edit in its buffer: nothing reaches the disk here.
    this.writes.push(p);
    this.buffers.set(p.path, p.content);
    return {};
  }

  /** Terminals run as real local processes, as an editor's would. */
  private procs = new Map<string, { proc: ReturnType<typeof Bun.spawn>; output: string; done: Promise<number> }>();

  async createTerminal(p: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse> {
    this.terminals.push(p);
    // Like a real editor, the terminal inherits the editor's own environment, secrets included.
    const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", GITHUB_TOKEN: "ghp-editor-secret", PGPASSWORD: "editor-db-secret" };
    for (const v of p.env ?? []) env[v.name] = v.value;
    const proc = Bun.spawn([p.command, ...(p.args ?? [])], { cwd: p.cwd ?? undefined, env, stdout: "pipe", stderr: "pipe" });
    const id = `term-${this.procs.size + 1}`;
    const t = { proc, output: "", done: Promise.resolve(0) };
    const pump = async (s: ReadableStream<Uint8Array>) => {
      for await (const c of s) t.output += new TextDecoder().decode(c);
    };
    t.done = Promise.all([pump(proc.stdout as ReadableStream<Uint8Array>), pump(proc.stderr as ReadableStream<Uint8Array>), proc.exited]).then(([, , code]) => code);
    this.procs.set(id, t);
    return { terminalId: id };
  }

  async terminalOutput(p: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse> {
    return { output: this.procs.get(p.terminalId)!.output, truncated: false };
  }

  async waitForTerminalExit(p: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    const t = this.procs.get(p.terminalId)!;
    const code = await t.done;
    return t.proc.signalCode ? { exitCode: null, signal: String(t.proc.signalCode) } : { exitCode: code };
  }

  async killTerminal(p: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse> {
    this.procs.get(p.terminalId)?.proc.kill("SIGKILL");
    return {};
  }

  async releaseTerminal(p: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse> {
    this.procs.get(p.terminalId)?.proc.kill("SIGKILL");
    this.procs.delete(p.terminalId);
    return {};
  }

  /** How many updates have arrived so far: take it before an action and pass it to waitFor. */
  mark(): number {
    return this.updates.length;
  }

  /**
   * Resolves when an update matching `pred` arrives at or after position
   * `since` (a mark() taken before the action), never for one that came
   * before it (core/testing/fresh-wait.ts).
   */
  waitFor(pred: (u: acp.SessionNotification) => boolean, since: number): Promise<void> {
    if (this.updates.slice(since).some(pred)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }

  kinds(sessionId?: string): string[] {
    return this.updates.filter((u) => !sessionId || u.sessionId === sessionId).map((u) => u.update.sessionUpdate);
  }

  text(sessionId?: string, kind = "agent_message_chunk"): string {
    return this.updates
      .filter((u) => (!sessionId || u.sessionId === sessionId) && u.update.sessionUpdate === kind)
      .map((u) => ((u.update as { content: { text?: string } }).content.text ?? ""))
      .join("");
  }
}

export interface Connected {
  conn: acp.ClientSideConnection;
  editor: ScriptedEditor;
  log: string[];
  close(): Promise<void>;
  /** Raw NDJSON lines the agent wrote (for ordering checks). */
  frames: string[];
}

/** Serve the agent in-process over byte streams and connect a ClientSideConnection to it. */
export function connect(env: AcpEnv, editor = new ScriptedEditor(), engine: Record<string, unknown> = {}): Connected {
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const frames: string[] = [];
  const dec = new TextDecoder();
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, ctl) {
      for (const line of dec.decode(chunk, { stream: true }).split("\n")) if (line.trim()) frames.push(line);
      ctl.enqueue(chunk);
    },
  });
  void toClient.readable.pipeTo(tap.writable).catch(() => {});
  const log: string[] = [];
  const agent = createAcpAgent({ home: env.home, log: quietLog(log), engine: { retry: { baseDelayMs: 5, maxDelayMs: 20 }, ...engine } });
  const agentConn = agent.app.connect(acp.ndJsonStream(toClient.writable, toAgent.readable));
  const conn = new acp.ClientSideConnection(() => editor, acp.ndJsonStream(toAgent.writable, tap.readable));
  return {
    conn,
    editor,
    log,
    frames,
    async close() {
      agentConn.close();
      await agent.shutdown();
    },
  };
}

export const initParams = (caps: acp.ClientCapabilities = {}): acp.InitializeRequest => ({
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: caps,
  clientInfo: { name: "scripted-editor", version: "1" },
});

/**
 * A test file's scripted model + agent + initialized SDK client, torn down
 * after each test: `setup(steps)` starts them; `cleanups` takes more.
 */
export function acpTestRig() {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const setup = async (steps: Parameters<typeof startScriptedOpenAI>[0]) => {
    const llm = await startScriptedOpenAI(steps);
    const env = makeAcpEnv(llm.url);
    const c = connect(env);
    cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
    await c.conn.initialize(initParams({}));
    return { llm, env, ...c };
  };
  return { cleanups, setup };
}
