/**
 * One MCP server: connect (stdio under the sandbox, Streamable HTTP, SSE),
 * list what it offers, call its tools, follow list_changed, and come back
 * after a crash or a dropped connection — on next use, with backoff.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Prompt, Resource, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { ReasonixError, errorMessage } from "../errors.ts";
import { buildInfo } from "../version.ts";
import { expandSpec, expansionEnv, type McpServerSpec } from "./config.ts";
import type { LaunchContext, Launched } from "./launch.ts";
import type { CallOptions, ToolCaller } from "./tools.ts";

export type ServerStatus = "disabled" | "blocked" | "idle" | "starting" | "ready" | "failed";

export interface ConnectionContext extends LaunchContext {
  /** Called when the tool list changed (or first arrived). */
  onToolsChanged?(): void;
}

const MAX_PAGES = 50;

/** The SDK's client half (client-sdk.ts), loaded on the first connect: startup without MCP use never pays for it. */
let sdk: typeof import("./client-sdk.ts") | undefined;
const loadSdk = async () => (sdk ??= await import("./client-sdk.ts"));
/** A JSON-RPC error the server answered with (the SDK is loaded by then), other than a closed connection. */
const closedConnection = (e: unknown) => sdk !== undefined && e instanceof sdk.McpError && e.code === sdk.ErrorCode.ConnectionClosed;
const answeredError = (e: unknown) => sdk !== undefined && e instanceof sdk.McpError && e.code !== sdk.ErrorCode.ConnectionClosed;

/**
 * The SDK compiles every tool's outputSchema when the list arrives (ajv,
 * synchronous, slow): with several servers starting in the background that
 * held the event loop (the UI) for hundreds of ms. Compile on first use.
 * The Ajv instance itself (15-40 ms of synchronous setup, and the first one
 * loads the ajv module) is made only then too: most servers never need it.
 * One per connection: schemas with the same $id from two servers must not
 * share a cache entry.
 */
class LazyValidator implements jsonSchemaValidator {
  private inner?: AjvJsonSchemaValidator;
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let compiled: JsonSchemaValidator<T> | undefined;
    return (input) => (compiled ??= (this.inner ??= new sdk!.AjvJsonSchemaValidator()).getValidator<T>(schema))(input);
  }
}
const PROBE_TIMEOUT_MS = 5_000;
const backoffMs = (failures: number) => Math.min(30_000, 500 * 2 ** Math.max(0, failures - 1));

export class McpConnection implements ToolCaller {
  status: ServerStatus;
  error?: string;
  tools: Tool[] = [];
  prompts: Prompt[] = [];
  resources: Resource[] = [];
  /** How long the last start took, by phase (ms). */
  timings: { connect?: number; list?: number } = {};
  /** "bwrap", "seatbelt", "unconfined", or "http"/"sse". */
  backend?: string;
  serverInfo?: { name: string; version: string };
  private client?: Client;
  private launched?: Launched;
  private starting?: Promise<void>;
  private failures = 0;
  private retryAt = 0;
  private closed = false;
  private probing = false;
  /** Aborts the start in flight (close() before the server answered). */
  private stopStart?: AbortController;
  /** Calls in flight that can put a server's input request to their user (newest last). */
  private readonly askers: NonNullable<CallOptions["elicit"]>[] = [];

  constructor(readonly spec: McpServerSpec, private readonly ctx: ConnectionContext) {
    this.status = spec.blocked ? "blocked" : spec.enabled ? "idle" : "disabled";
    if (spec.blocked) this.error = spec.blocked;
  }

  get name(): string {
    return this.spec.name;
  }

  /** The server's stderr tail (stdio), for failure reports. */
  stderr(): string {
    return this.launched?.stderr() ?? "";
  }

  /** Connect unless connected or connecting; resolves when that attempt settles (never rejects). */
  start(): Promise<void> {
    if (this.status === "blocked" || this.status === "disabled" || this.closed) return Promise.resolve();
    if (this.status === "ready") return Promise.resolve();
    this.starting ??= this.connect().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async transportFor(spec: McpServerSpec): Promise<Transport> {
    const { SSEClientTransport, StreamableHTTPClientTransport } = await loadSdk();
    if (spec.type === "stdio") {
      // Loaded on the first connect, like the SDK (launch.ts and oauth.ts pull in its transports and auth).
      const { launchStdio } = await import("./launch.ts");
      this.launched = await launchStdio(spec, this.ctx);
      this.backend = this.launched.backend;
      return this.launched.transport;
    }
    const url = new URL(spec.url!);
    const requestInit = { headers: spec.headers };
    // A static Authorization header always wins over OAuth.
    const hasAuth = Object.keys(spec.headers).some((h) => h.toLowerCase() === "authorization");
    const { FileOAuthProvider, oauthProviderFor, stepUpFetch } = await import("./oauth.ts");
    const authProvider = hasAuth ? undefined : oauthProviderFor(spec, this.ctx.home, { interactive: false });
    // A background sign-in cannot widen its scope (that needs the browser): say what to run instead.
    const fetch = authProvider instanceof FileOAuthProvider ? stepUpFetch(authProvider) : undefined;
    this.backend = spec.type;
    return spec.type === "sse" ? new SSEClientTransport(url, { requestInit, authProvider, fetch }) : new StreamableHTTPClientTransport(url, { requestInit, authProvider, fetch });
  }

  private async connect(): Promise<void> {
    this.status = "starting";
    this.error = undefined;
    const stop = (this.stopStart = new AbortController());
    const deadline = Date.now() + this.spec.startupTimeoutMs;
    const left = () => ({ timeout: Math.max(1, deadline - Date.now()), signal: stop.signal });
    const t0 = performance.now();
    let client: Client | undefined;
    try {
      const spec = expandSpec(this.spec, expansionEnv(this.spec, this.ctx.home, this.ctx.env ?? process.env));
      const transport = await this.transportFor(spec);
      if (this.closed) throw new Error("closed");
      const { Client, ElicitRequestSchema } = await loadSdk();
      client = new Client(
        { name: "reasonix", version: buildInfo().version },
        {
          // Form input only (no URL mode); defaults the user left alone are filled in.
          capabilities: { elicitation: { form: { applyDefaults: true } } },
          jsonSchemaValidator: new LazyValidator(),
          listChanged: {
            tools: { onChanged: (err, tools) => !err && tools && this.setTools(tools) },
            prompts: { onChanged: (err, prompts) => !err && prompts && (this.prompts = prompts) },
            resources: { onChanged: (err, resources) => !err && resources && (this.resources = resources) },
          },
        },
      );
      const c = client;
      // The spawn (in connect) is synchronous too: its own turn of the loop.
      if (spec.type === "stdio") await (await import("./launch.ts")).yieldLoop();
      c.setRequestHandler(ElicitRequestSchema, (req) => this.elicit(req.params));
      c.onclose = () => this.lost(c, "the server closed the connection");
      // Over HTTP a dead server closes no pipe: the SDK only reports the dropped stream and its retries.
      if (spec.type !== "stdio") c.onerror = (err) => this.probe(c, err);
      await withDeadline(c.connect(transport, left()), deadline, `no answer to initialize within ${this.spec.startupTimeoutMs / 1000} s`, stop.signal);
      this.timings.connect = Math.round(performance.now() - t0);
      const t1 = performance.now();
      const caps = c.getServerCapabilities() ?? {};
      const tools: Tool[] = [];
      if (caps.tools) {
        let cursor: string | undefined;
        for (let i = 0; i < MAX_PAGES; i++) {
          const page = await c.listTools(cursor ? { cursor } : {}, left());
          tools.push(...page.tools);
          cursor = page.nextCursor;
          if (!cursor) break;
        }
      }
      this.prompts = caps.prompts ? (await c.listPrompts({}, left()).catch(() => ({ prompts: [] }))).prompts : [];
      this.resources = caps.resources ? (await c.listResources({}, left()).catch(() => ({ resources: [] }))).resources : [];
      this.timings.list = Math.round(performance.now() - t1);
      const v = c.getServerVersion();
      this.serverInfo = v ? { name: v.name, version: v.version } : undefined;
      if (this.closed) throw new Error("closed");
      this.client = c;
      this.status = "ready";
      this.failures = 0;
      this.setTools(tools);
    } catch (e) {
      if (client) await client.close().catch(() => {});
      this.launched?.finish();
      // Closed while starting (the run ended): nothing failed, nothing to report.
      if (this.closed) return void (this.status = "idle");
      this.failures++;
      this.retryAt = Date.now() + backoffMs(this.failures);
      this.status = "failed";
      const gone = this.launched?.exited();
      // "Connection closed" says less than how the process ended.
      const cause = gone && closedConnection(e) ? `the server exited (${gone}) before it answered initialize` : errorMessage(e);
      this.error = withTail(cause, this.stderr());
    } finally {
      this.stopStart = undefined;
    }
  }

  /** Keep the list; tell the source only when it really changed (byte-stable prompts). */
  private setTools(tools: Tool[]): void {
    const same = JSON.stringify(tools) === JSON.stringify(this.tools);
    this.tools = tools;
    if (!same) this.ctx.onToolsChanged?.();
  }

  private lost(c: Client, why: string): void {
    if (this.client !== c || this.closed) return;
    this.client = undefined;
    this.status = "failed";
    this.failures++;
    this.retryAt = Date.now() + backoffMs(this.failures);
    const gone = this.launched?.exited();
    this.error = withTail(gone ? `the server exited (${gone})` : why, this.stderr());
    this.launched?.finish();
  }

  /**
   * The transport reported trouble (an event stream dropped, a resume that
   * failed). A dead server never answers the calls in flight, so ask it
   * directly: a ping that fails to connect (refused, reset, a session the
   * server no longer knows) closes the connection, which fails those calls
   * at once, and the next use reconnects after its backoff. A ping the
   * server answers, even with an error, means it is alive.
   */
  private probe(c: Client, err: Error): void {
    if (this.client !== c || this.probing) return;
    this.probing = true;
    c.ping({ timeout: PROBE_TIMEOUT_MS })
      .then(
        () => {},
        (e: unknown) => {
          const answered = answeredError(e);
          if (!answered) this.drop(c, `the connection was lost (${errorMessage(err)}; then ${errorMessage(e)})`);
        },
      )
      .finally(() => (this.probing = false));
  }

  /** Mark the connection lost and close it: calls waiting on it fail now. */
  private drop(c: Client, why: string): void {
    this.lost(c, why);
    void c.close().catch(() => {});
  }

  /** A connected client: restarts a crashed server (after its backoff) or waits for one starting. */
  async ready(): Promise<Client> {
    if (this.status === "blocked" || this.status === "disabled") throw new ReasonixError("mcp-unavailable", `MCP server "${this.name}" is ${this.status}: ${this.error ?? "enabled = false"}`);
    if (this.status === "failed" && Date.now() < this.retryAt) {
      const s = Math.ceil((this.retryAt - Date.now()) / 1000);
      throw new ReasonixError("mcp-unavailable", `MCP server "${this.name}" is not available (${this.error}); it is retried in ${s} s`);
    }
    await this.start();
    if (!this.client) throw new ReasonixError("mcp-unavailable", `MCP server "${this.name}" could not start: ${this.error ?? "unknown error"}`);
    return this.client;
  }

  async call(tool: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallToolResult> {
    const client = await this.ready();
    const timeout = this.spec.toolTimeoutMs[tool] ?? this.spec.callTimeoutMs;
    const onprogress = opts.onProgress
      ? (p: { progress: number; total?: number; message?: string }) => opts.onProgress!({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) })
      : undefined;
    if (opts.elicit) this.askers.push(opts.elicit);
    try {
      // An aborted signal makes the SDK send notifications/cancelled for this request.
      return (await client.callTool({ name: tool, arguments: args }, undefined, { signal: opts.signal, timeout, ...(onprogress ? { onprogress } : {}) })) as CallToolResult;
    } catch (e) {
      // The server answered with a JSON-RPC error: the connection is fine. Anything
      // else (the process died, HTTP failed, the session is gone) means reconnect next time.
      // A 403 (e.g. a scope this sign-in lacks) is an answer too: a new sign-in is picked up without reconnecting.
      const { McpError, ErrorCode, StreamableHTTPError } = await loadSdk();
      const answered = (e instanceof McpError && e.code !== ErrorCode.ConnectionClosed) || (e instanceof StreamableHTTPError && e.code === 403);
      if (answered || opts.signal.aborted) return rethrowUndoubled(e);
      this.lost(client, `the connection failed (${errorMessage(e)})`);
      await client.close().catch(() => {});
      throw new ReasonixError("mcp-unavailable", `MCP server "${this.name}" is unavailable: ${this.error ?? errorMessage(e)}`);
    } finally {
      if (opts.elicit) this.askers.splice(this.askers.lastIndexOf(opts.elicit), 1);
    }
  }

  /**
   * A server's elicitation/create goes to the user of the newest call in
   * flight; outside any call no one asked for this server's help: declined.
   */
  private async elicit(p: { message: string; mode?: string; requestedSchema?: unknown }): Promise<{ action: "accept" | "decline" | "cancel"; content?: Record<string, string | number | boolean | string[]> }> {
    const ask = this.askers.at(-1);
    if (!ask || (p.mode ?? "form") !== "form") return { action: "decline" };
    const a = await ask({ message: p.message, schema: (p.requestedSchema ?? {}) as Record<string, unknown> });
    return a.action === "accept" ? { action: "accept", content: (a.content ?? {}) as Record<string, string | number | boolean | string[]> } : { action: a.action };
  }

  /** A prompt's messages as one text (text parts as is, other parts named). */
  async promptText(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<string> {
    const client = await this.ready();
    const r = await client.getPrompt({ name, arguments: args }, { signal, timeout: this.spec.callTimeoutMs }).catch(rethrowUndoubled);
    return r.messages
      .map((m) => {
        const c = m.content as { type: string; text?: string; resource?: { uri: string; text?: string } };
        if (c.type === "text") return c.text ?? "";
        if (c.type === "resource" && typeof c.resource?.text === "string") return `[resource ${c.resource.uri}]\n${c.resource.text}`;
        return `[${c.type} content]`;
      })
      .join("\n\n");
  }

  /** A resource's contents as text (binary parts described). */
  async resourceText(uri: string, signal?: AbortSignal): Promise<string> {
    const client = await this.ready();
    const r = await client.readResource({ uri }, { signal, timeout: this.spec.callTimeoutMs }).catch(rethrowUndoubled);
    return r.contents
      .map((c) => ("text" in c && typeof c.text === "string" ? c.text : `[${c.mimeType ?? "binary"} data, ${Math.floor(((c as { blob?: string }).blob?.length ?? 0) * 0.75)} bytes]`))
      .join("\n");
  }

  /** Stop the server; a start still in flight is cancelled (its process stopped) before this resolves. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopStart?.abort();
    await this.starting;
    const c = this.client;
    this.client = undefined;
    if (c) await c.close().catch(() => {});
    this.launched?.finish();
  }
}

/** A cause with the last lines of the server's stderr. */
function withTail(cause: string, stderr: string): string {
  const tail = stderr.trim().split("\n").slice(-5).join("\n");
  return `${cause}${tail ? `\nstderr: ${tail}` : ""}`;
}

/**
 * A server built on the SDK that throws an McpError sends its message with the
 * "MCP error N: " prefix already on, and the client's McpError adds it again:
 * say it once.
 */
function rethrowUndoubled(e: unknown): never {
  if (sdk && e instanceof sdk.McpError) e.message = e.message.replace(/^(MCP error -?\d+: )(?:\1)+/, "$1");
  throw e;
}

async function withDeadline<T>(p: Promise<T>, deadline: number, message: string, signal: AbortSignal): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), Math.max(1, deadline - Date.now()));
    onAbort = () => reject(new Error("closed"));
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort!);
  }
}
