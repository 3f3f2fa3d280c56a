// Usage counters from the front ends other than the chat and run (issue 31):
// `reasonix serve`, `reasonix acp` and `reasonix mcp serve` — real processes
// against the scripted model — count the turns of every session they open and
// send them at exit with their own surface, only with [telemetry] mode = on
// (docs/telemetry.md); under the default auto they send nothing at all.
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ScriptedEditor, initParams } from "../../core/acp/tests/helpers.ts";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { startScriptedOpenAI } from "../../core/testing/scripted-llm.ts";
import { saveChoice } from "../../core/telemetry/store.ts";
import { caller, untilEnd } from "./mcp-serve-helpers.ts";
import { mainTs, makeCliEnv, type CliEnv } from "./run-helpers.ts";
import { checkedPayloads, telemetryCollector, telemetryEnv, telemetryToml, type Collector } from "./telemetry-helpers.ts";

setDefaultTimeout(120_000);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PROMPT = "summarize secret-project-zebra in /home/alice/private";

async function setup(mode: "on" | "auto"): Promise<{ ce: CliEnv; env: Record<string, string>; collector: Collector }> {
  const collector = telemetryCollector(204);
  const llm = await startScriptedOpenAI([{ text: "All done: zebra summarized." }]);
  const ce = makeCliEnv(llm.url, { extraToml: telemetryToml(collector.url, mode) });
  cleanups.push(collector.stop, () => llm.close(), () => ce.cleanup());
  saveChoice(ce.home, "yes");
  return { ce, env: telemetryEnv(ce), collector };
}

function spawn(ce: CliEnv, env: Record<string, string>, args: string[], stdin: "pipe" | "ignore" = "ignore") {
  const p = Bun.spawn([process.execPath, mainTs, ...args], { cwd: ce.workspace, env, stdin, stdout: "pipe", stderr: "pipe" });
  cleanups.push(() => p.kill("SIGKILL"));
  return p;
}

/** The one ping: its payloads pass the allow-list, carry SURFACE and one finished turn, and nothing of the session. */
function expectOnePing(c: Collector, ce: CliEnv, surface: string) {
  expect(c.bodies).toHaveLength(1);
  const [p] = checkedPayloads(c.bodies[0]!);
  expect(p!.surface).toBe(surface);
  expect(p!.counters).toMatchObject({ finish_reason: { stop: 1 }, turn_latency: expect.any(Object) });
  for (const bad of ["zebra", "alice", "scripted-model", "127.0.0.1", ce.workspace]) expect(c.bodies[0]).not.toContain(bad);
}

async function serveTurn(mode: "on" | "auto") {
  const { ce, env, collector } = await setup(mode);
  const portFile = join(ce.home, "serve.port");
  const tokenFile = join(ce.home, "serve.token");
  writeFileSync(tokenFile, "surfaces-token-0123456789abcdefghij\n", { mode: 0o600 });
  const p = spawn(ce, env, ["serve", "--addr", "127.0.0.1:0", "--auth", "token", "--token-file", tokenFile, "--port-file", portFile]);
  await pollFor("serve listening", () => existsSync(portFile) && readFileSync(portFile, "utf8").trim(), (v) => !!v, { timeoutMs: 60_000 });
  const base = `http://${readFileSync(portFile, "utf8").trim()}`;
  const call = async (path: string, method: string, body?: unknown) => {
    const r = await fetch(`${base}${path}`, { method, headers: { authorization: "Bearer surfaces-token-0123456789abcdefghij", "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as any };
  };
  const created = await call("/api/sessions", "POST", {});
  expect(created.status).toBe(201);
  expect((await call(`/api/sessions/${created.body.id}/prompt`, "POST", { prompt: PROMPT })).status).toBe(202);
  await pollFor("the turn's end in the history", () => call(`/api/sessions/${created.body.id}/history`, "GET"), (h) => h.body.events?.some((e: any) => e.type === "turn_end"), { timeoutMs: 60_000, show: (h) => JSON.stringify(h.body) });
  p.kill("SIGTERM");
  expect(await p.exited).toBe(0);
  return { ce, collector };
}

async function acpTurn(mode: "on" | "auto") {
  const { ce, env, collector } = await setup(mode);
  const p = spawn(ce, env, ["acp"], "pipe");
  const sink = p.stdin as import("bun").FileSink;
  const toAgent = new WritableStream<Uint8Array>({
    write: (chunk) => void (sink.write(chunk), sink.flush()),
    close: () => void sink.end(),
  });
  const editor = new ScriptedEditor();
  const conn = new acp.ClientSideConnection(() => editor, acp.ndJsonStream(toAgent, p.stdout as ReadableStream<Uint8Array>));
  await conn.initialize(initParams());
  const s = await conn.newSession({ cwd: ce.workspace, mcpServers: [] });
  expect((await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: PROMPT }] })).stopReason).toBe("end_turn");
  // The editor hangs up: the agent ends on its own.
  await toAgent.close();
  expect(await p.exited).toBe(0);
  return { ce, collector };
}

/** An MCP client transport over a spawned process that, on close, only ends stdin (never kills): the server exits by itself. */
function stdioTransport(p: ReturnType<typeof spawn>): Transport {
  const sink = p.stdin as import("bun").FileSink;
  const t: Transport = {
    async start() {
      const buf = new ReadBuffer();
      void (async () => {
        for await (const chunk of p.stdout as ReadableStream<Uint8Array>) {
          buf.append(Buffer.from(chunk));
          for (let m = buf.readMessage(); m; m = buf.readMessage()) t.onmessage?.(m as JSONRPCMessage);
        }
        t.onclose?.();
      })();
    },
    async send(message) {
      sink.write(serializeMessage(message));
      sink.flush();
    },
    async close() {
      sink.end();
    },
  };
  return t;
}

async function mcpServeTurn(mode: "on" | "auto") {
  const { ce, env, collector } = await setup(mode);
  const p = spawn(ce, env, ["mcp", "serve"], "pipe");
  const client = new Client({ name: "telemetry-driver", version: "1" });
  await client.connect(stdioTransport(p));
  const call = caller(client);
  const run = await call("reasonix_run", { prompt: PROMPT });
  expect(run.isError).toBe(false);
  expect((await untilEnd(call, run.data.session_id)).end.reason).toBe("done");
  await client.close();
  expect(await p.exited).toBe(0);
  return { ce, collector };
}


const surfaces: [string, string, (mode: "on" | "auto") => Promise<{ ce: CliEnv; collector: Collector }>][] = [
  ["serve", "served sessions, sent when it is stopped (SIGTERM)", serveTurn],
  ["acp", "the editor's session, sent when the editor hangs up", acpTurn],
  ["mcp-serve", "a client's task, sent when the client closes stdin", mcpServeTurn],
];
for (const [surface, what, turn] of surfaces) {
  test(`${surface}, mode on: ${what}, as surface ${surface}`, async () => {
    const { ce, collector } = await turn("on");
    expectOnePing(collector, ce, surface);
  });
  test(`${surface}, mode auto (a yes saved): no request at all`, async () => {
    const { collector } = await turn("auto");
    expect(collector.bodies).toHaveLength(0);
  });
}
