// `reasonix mcp serve` driven by a real MCP client (the SDK's Client over
// stdio): list tools, run a task to completion against the scripted model,
// poll events, cancel, roll back, and the read-only default.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { caller, untilEnd } from "./mcp-serve-helpers.ts";
import { mainTs, makeCliEnv } from "./run-helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(steps: Parameters<typeof startScriptedOpenAI>[0], extraArgs: string[] = [], extraToml = "") {
  const llm = await startScriptedOpenAI(steps);
  const ce = makeCliEnv(llm.url, { extraToml });
  const transport = new StdioClientTransport({ command: process.execPath, args: [mainTs, "mcp", "serve", ...extraArgs], cwd: ce.workspace, env: ce.env, stderr: "pipe" });
  const client = new Client({ name: "test-driver", version: "1" });
  await client.connect(transport);
  cleanups.push(() => llm.close(), () => ce.cleanup(), () => client.close());
  const call = caller(client);
  return { llm, ce, client, call, untilEnd: (id: string, since = 0) => untilEnd(call, id, since) };
}

test("lists its tools, runs a read-only task to completion, resumes, rolls back; writing needs --allow-writes", async () => {
  const s = await serve([
    { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
    { text: "The notes say hello." },
    { text: "Second answer." },
  ]);
  writeFileSync(join(s.ce.workspace, "notes.txt"), "hello\n");
  const tools = (await s.client.listTools()).tools.map((t) => t.name);
  expect(tools).toEqual(["reasonix_run", "reasonix_resume", "reasonix_cancel", "reasonix_events", "reasonix_rollback", "reasonix_status"]);

  const denied = await s.call("reasonix_run", { prompt: "edit things", mode: "auto" });
  expect(denied.isError).toBe(true);
  expect(denied.text).toContain("read-only");
  expect(denied.text).toContain("--allow-writes");

  const run = await s.call("reasonix_run", { prompt: "what do the notes say?" });
  expect(run.isError).toBe(false);
  expect(run.data.mode).toBe("read-only");
  const id = run.data.session_id;
  const first = await s.untilEnd(id);
  expect(first.end.reason).toBe("done");
  const types = first.events.map((e) => e.event.type);
  expect(types).toContain("tool_result");
  expect(first.events.find((e) => e.event.type === "assistant" && e.event.text)?.event.text).toBe("The notes say hello.");
  expect(first.events.map((e) => e.seq)).toEqual([...first.events.map((e) => e.seq)].sort((a, b) => a - b));

  const again = await s.call("reasonix_resume", { session_id: id, prompt: "and again?" });
  expect(again.isError).toBe(false);
  const second = await s.untilEnd(id, first.next);
  expect(second.end.reason).toBe("done");

  const status = await s.call("reasonix_status", {});
  expect(status.data.allow_writes).toBe(false);
  expect(status.data.sessions[0].turns.map((t: any) => t.turn)).toEqual([1, 2]);
  expect(status.data.models[0].name).toBe("scripted");

  // Code rollback changes files: refused read-only; the conversation alone is fine.
  const code = await s.call("reasonix_rollback", { session_id: id, turn: 2, mode: "code" });
  expect(code.isError).toBe(true);
  expect(code.text).toContain("error: a code rollback restores files, and this server is read-only");
  expect(code.text).not.toContain("permission mode");
  const conv = await s.call("reasonix_rollback", { session_id: id, turn: 2, mode: "conversation" });
  expect(conv.text).not.toContain("error");
  expect(conv.isError).toBe(false);
  const after = await s.call("reasonix_status", {});
  expect(after.data.sessions[0].turns.map((t: any) => t.turn)).toEqual([1]);

  const unknown = await s.call("reasonix_events", { session_id: "nope" });
  expect(unknown.isError).toBe(true);
  expect(unknown.text).toContain("no session nope");
});

test("without --allow-writes only read-only runs: plan (whose allow-listed bash writes) and every other mode are refused, on run and on resume", async () => {
  // The user allows `touch` anywhere; plan mode runs allowed bash commands, so a plan-mode task could write.
  const s = await serve([{ toolCalls: [{ name: "bash", arguments: { command: "touch planted.txt" } }] }, { text: "done" }, { text: "read-only answer" }], [], '[permissions]\nallow = ["Bash(touch:*)"]');
  const planted = join(s.ce.workspace, "planted.txt");
  for (const mode of ["plan", "ask", "auto", "yolo", "bogus"]) {
    const r = await s.call("reasonix_run", { prompt: "make a file", mode });
    if (!r.isError) await s.untilEnd(r.data.session_id);
    expect([mode, r.isError, existsSync(planted)]).toEqual([mode, true, false]);
    expect(r.text).toMatch(mode === "bogus" ? /mode must be one of/ : /this server is read-only.*--allow-writes/s);
  }
  const ro = await s.call("reasonix_run", { prompt: "look only", mode: "read-only" });
  expect(ro.isError).toBe(false);
  const id = ro.data.session_id;
  await s.untilEnd(id);
  const resumed = await s.call("reasonix_resume", { session_id: id, prompt: "now make the file", mode: "plan" });
  expect(resumed.isError).toBe(true);
  expect(resumed.text).toContain("--allow-writes");
  expect(existsSync(planted)).toBe(false);
  expect((await s.call("reasonix_status", {})).data.sessions.map((x: any) => x.mode)).toEqual(["read-only"]);
});

test("cancel stops a running turn; --allow-writes lets a task edit and a code rollback restore", async () => {
  const s = await serve(
    [
      { text: "slow answer", until: new Promise(() => {}) }, // answers only if never cancelled (the server gives up when the client goes away)
      { toolCalls: [{ name: "write_file", arguments: { path: "out.txt", content: "written\n" } }] },
      { text: "wrote it" },
    ],
    ["--allow-writes"],
  );
  const run = await s.call("reasonix_run", { prompt: "take your time" });
  const id = run.data.session_id;
  // Wait for the turn to start, then cancel it.
  const started = await s.call("reasonix_events", { session_id: id, since: 0, timeout_seconds: 10 });
  expect(started.data.events.map((e: any) => e.event.type)).toContain("turn_start");
  // … and its model request is in flight.
  // (a wait on the request the turn causes, bounded by the test's timeout, not a 5 s budget)
  await pollFor("the turn's model request", () => s.llm.chatRequests().length, (n) => n > 0, { timeoutMs: 50_000 });
  expect(s.llm.chatRequests()).toHaveLength(1);
  const c = await s.call("reasonix_cancel", { session_id: id });
  expect(c.data.was_busy).toBe(true);
  const cancelled = await s.untilEnd(id);
  expect(cancelled.end.reason).toBe("cancelled");

  const w = await s.call("reasonix_resume", { session_id: id, prompt: "write out.txt", mode: "auto" });
  expect(w.isError).toBe(false);
  const wrote = await s.untilEnd(id, cancelled.next);
  expect(wrote.end.reason).toBe("done");
  expect(readFileSync(join(s.ce.workspace, "out.txt"), "utf8")).toBe("written\n");
  expect((await s.call("reasonix_status", {})).data.sessions[0].mode).toBe("auto");
  const rb = await s.call("reasonix_rollback", { session_id: id, turn: 2, mode: "both" });
  expect(rb.isError).toBe(false);
  expect(rb.data.files).toEqual([{ path: join(s.ce.workspace, "out.txt"), action: "deleted" }]);
  expect(existsSync(join(s.ce.workspace, "out.txt"))).toBe(false);
});

async function serveHttp(extraArgs: string[] = [], steps: Parameters<typeof startScriptedOpenAI>[0] = [{ text: "over http" }]) {
  const llm = await startScriptedOpenAI(steps);
  const ce = makeCliEnv(llm.url);
  const proc = Bun.spawn([process.execPath, mainTs, "mcp", "serve", "--http", "127.0.0.1:0", "--token", "t0ken-for-test", ...extraArgs], { cwd: ce.workspace, env: ce.env, stdout: "ignore", stderr: "pipe" });
  cleanups.push(() => llm.close(), () => ce.cleanup(), async () => (proc.kill(), await proc.exited));
  const reader = proc.stderr.getReader();
  let text = "";
  for (let i = 0; i < 100 && !/http:\/\/\S+\/mcp/.test(text); i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const url = /(http:\/\/\S+\/mcp)/.exec(text)?.[1];
  if (!url) throw new Error(`mcp serve --http did not print its URL: ${text}`);
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const connect = async (token = "t0ken-for-test") => {
    const client = new Client({ name: "test-driver", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    cleanups.push(() => client.close());
    return client;
  };
  return { llm, ce, url, text, connect };
}

test("--http serves the same tools over Streamable HTTP behind a bearer token", async () => {
  // The answer takes a moment: polling events must wait for new ones, not return the old ones at once.
  const s = await serveHttp([], [{ text: "over http", delayMs: 1500 }]);
  expect(s.url).toStartWith("http://127.0.0.1:");
  expect(s.text).not.toContain("t0ken-for-test");

  await expect(s.connect("wrong")).rejects.toThrow();

  const client = await s.connect();
  expect((await client.listTools()).tools).toHaveLength(6);
  const call = caller(client);
  const run = await call("reasonix_run", { prompt: "hi" });
  const { end } = await untilEnd(call, run.data.session_id);
  expect(end.reason).toBe("done");
});

test("reasonix_events never waits past the SDK client's default request timeout: timeout_seconds is capped at 50 s and the answer says so", async () => {
  const { DEFAULT_REQUEST_TIMEOUT_MSEC } = await import("@modelcontextprotocol/sdk/shared/protocol.js");
  const { EVENTS_MAX_WAIT_SECONDS } = await import("../../core/mcp/server/server.ts");
  expect(EVENTS_MAX_WAIT_SECONDS).toBe(50);
  // Room for the answer to travel before a client on the default timeout gives up.
  expect(EVENTS_MAX_WAIT_SECONDS * 1000).toBeLessThanOrEqual(DEFAULT_REQUEST_TIMEOUT_MSEC - 10_000);
  const s = await serve([{ text: "done" }]);
  const schema = (await s.client.listTools()).tools.find((t) => t.name === "reasonix_events")!.inputSchema as any;
  expect(schema.properties.timeout_seconds.maximum).toBe(EVENTS_MAX_WAIT_SECONDS);
  const run = await s.call("reasonix_run", { prompt: "hi" });
  await s.untilEnd(run.data.session_id);
  // since 0: events are there, so the answer is immediate; it reports the wait it would have used.
  for (const [asked, applied] of [[60, 50], [3600, 50], [7, 7], [0, 0]] as const) {
    const r = await s.call("reasonix_events", { session_id: run.data.session_id, since: 0, timeout_seconds: asked });
    expect([asked, r.isError, r.data.wait_seconds]).toEqual([asked, false, applied]);
  }
});

/** One raw POST (node:http, so Host and Origin are exactly what we say) of an initialize request. */
function rawInitialize(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  const payload = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: "Bearer t0ken-for-test", "content-length": String(Buffer.byteLength(payload)), ...headers } },
      (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

test("--http refuses DNS rebinding and foreign pages: a Host or Origin that is not this server gets 421/403 even with the token", async () => {
  const s = await serveHttp();
  const here = new URL(s.url).host;
  // A page on evil.example whose name now resolves to 127.0.0.1.
  const rebound = await rawInitialize(s.url, { host: `evil.example:${new URL(s.url).port}`, origin: "http://evil.example" });
  expect([rebound.status, rebound.body]).toEqual([421, expect.stringContaining("evil.example")]);
  // A foreign page that reaches the loopback address directly.
  const foreign = await rawInitialize(s.url, { host: here, origin: "http://evil.example" });
  expect([foreign.status, foreign.body]).toEqual([403, expect.stringContaining("http://evil.example")]);
  const wrongScheme = await rawInitialize(s.url, { host: here, origin: `https://${here}` });
  expect(wrongScheme.status).toBe(403);
  // Our own origin and loopback names pass.
  expect((await rawInitialize(s.url, { host: here, origin: `http://${here}` })).status).toBe(200);
  expect((await rawInitialize(s.url, { host: `localhost:${new URL(s.url).port}` })).status).toBe(200);
  // The SDK client (no Origin) still works.
  const client = await s.connect();
  expect((await client.listTools()).tools).toHaveLength(6);
  // --public-host names another Host to accept.
  const named = await serveHttp(["--public-host", "mcp.example"]);
  const port = new URL(named.url).port;
  expect((await rawInitialize(named.url, { host: `mcp.example:${port}`, origin: "http://mcp.example:" + port })).status).toBe(200);
  expect((await rawInitialize(named.url, { host: `evil.example:${port}` })).status).toBe(421);
});

test("a built-in slash command as a task never reaches the model: it says what to use instead (core/host/commands)", async () => {
  const s = await serve([]);
  const model = await s.call("reasonix_run", { prompt: "/model other" });
  expect(model.isError).toBe(true);
  expect(model.text).toContain("/model is not available in mcp serve: pass model to reasonix_run");
  const help = await s.call("reasonix_run", { prompt: "/help" });
  expect(help.isError).toBe(true);
  expect(help.text).toContain("/help is not available in mcp serve");
  expect(s.llm.chatRequests()).toHaveLength(0);
  expect((await s.call("reasonix_status", {})).data.sessions).toEqual([]);
});
