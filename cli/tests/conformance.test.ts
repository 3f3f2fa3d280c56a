// One script, every front end: the terminal chat (its ChatState and slash
// commands, in-process), the serve API (real HTTP), ACP (the SDK's client over
// a stream pair) and `reasonix run`. Each starts a session, runs a prompt that
// needs an approval, switches model, mode and effort, asks /help, steers a
// running turn, cancels one, runs a prompt the new mode refuses, and rewinds.
// They must end in the same state: the same model, the same requests to the
// model (model, effort), the same files, and the same conversation once the
// session is read back from disk. `reasonix run` and `mcp serve` (one prompt
// per call, no steering, model and mode chosen per call) run the part of the
// script they can do — including cancel and rewind — and must leave the same
// session as the chat. The conversation is compared as the shared transcript
// fold (core/protocol/fold.ts) renders it. The web UI runs the same script in
// Chromium: core/serve/tests/conformance.browser.test.ts.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeScriptedHome, type ScriptedHome } from "../../core/testing/scripted-home.ts";
import { pollFor } from "../../core/testing/fresh-wait.ts";
import { foldTranscript } from "../../core/protocol/fold.ts";
import { createEngine } from "../../core/engine/index.ts";
import type { EngineEvent } from "../../core/engine/types.ts";
import { steerMessage } from "../../core/engine/session.ts";
import { STEER_METHOD } from "../../core/acp/agent.ts";
import { ChatState } from "../chat/session.ts";
import { runSlash, type SlashContext } from "../chat/slash.ts";
import { plainPaint } from "../chat/cards.ts";
import { startServer } from "../../core/serve/server.ts";
import { engineFactoryFromConfig } from "../../core/serve/engine.ts";
import { connect, initParams } from "../../core/acp/tests/helpers.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { caller, untilEnd } from "./mcp-serve-helpers.ts";
import { mainTs, makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

setDefaultTimeout(120_000);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const OTHER = ["[[providers]]", 'name = "other"', 'kind = "openai"', 'base_url = "{{LLM}}"', 'model = "other-model"', 'api_key_env = "SCRIPTED_KEY"'].join("\n");

/** What a front end offers the script. */
interface Front {
  id(): string;
  /** Run a prompt to its end, answering each approval "allow once". */
  prompt(text: string): Promise<void>;
  /** A built-in command as the user types it; what the front end shows. */
  command(text: string): Promise<string>;
  /** Guidance for the running turn. */
  steer(text: string): Promise<void>;
  /** Stop the running turn. */
  cancel(): Promise<void>;
  /** Let go of the session (its log stays): the script reads it back from disk. */
  close(): Promise<void>;
}

/** The session as stored, the requests the model got and the files: what every front end must leave behind alike. */
interface Stored {
  model: string;
  turns: { turn: number; prompt: string }[];
  conversation: unknown[];
  requests: { model: string; effort?: string }[];
  files: { a: string | null; b: boolean };
}

interface Outcome extends Stored {
  help: string;
  /** Requests the commands sent to the model (must be none). */
  commandRequests: number;
  /** The last message of the request after steering. */
  steered: string;
}

async function setup(): Promise<{ llm: ScriptedServer; env: ScriptedHome }> {
  const llm = await startScriptedOpenAI([]);
  const env = makeScriptedHome(llm.url, { prefix: "reasonix-conformance-", key: "sk-conf", extraToml: OTHER.replace("{{LLM}}", llm.url) });
  cleanups.push(() => env.cleanup(), () => llm.close());
  return { llm, env };
}

/**
 * The conversation as stored, folded by the one transcript fold every front end
 * renders from (core/protocol/fold.ts), without ids, timings and usage: what
 * every front end must agree on.
 */
const fold = (events: EngineEvent[]): Record<string, unknown>[] =>
  foldTranscript(events).blocks.map((b): Record<string, unknown> => {
    if (b.kind === "prompt") return { t: "prompt", text: b.text };
    if (b.kind === "answer") return { t: "answer", text: b.text, steps: b.steps };
    if (b.kind === "tool") return { t: "tool", name: b.name, input: b.input, status: b.status };
    if (b.kind === "end") return { t: "end", reason: b.reason };
    return { t: "notice", type: b.event.type };
  });

/** The first turn of both scripts as the fold shows it. */
const WROTE_A = [
  { t: "prompt", text: "write a.txt" },
  // The step that asked for the tool said nothing: the fold opens no answer block for it.
  { t: "tool", name: "write_file", input: { path: "a.txt", content: "a\n" }, status: "ok" },
  { t: "answer", text: "wrote a.txt", steps: 1 },
  { t: "end", reason: "done" },
];

async function script(llm: ScriptedServer, env: ScriptedHome, front: Front): Promise<Outcome> {
  llm.push({ toolCalls: [{ id: "call_a", name: "write_file", arguments: { path: "a.txt", content: "a\n" } }] }, { text: "wrote a.txt" });
  await front.prompt("write a.txt");
  const before = llm.chatRequests().length;
  await front.command("/model other");
  await front.command("/mode read-only");
  await front.command("/effort low");
  const help = await front.command("/help");
  const commandRequests = llm.chatRequests().length - before;
  // Steer: the guidance sent while the model step is held reaches the next request.
  const gate = Promise.withResolvers<void>();
  llm.push({ toolCalls: [{ id: "call_r", name: "read_file", arguments: { path: "a.txt" } }], until: gate.promise }, { text: "a.txt says a" });
  const n = llm.chatRequests().length;
  const reading = front.prompt("read a.txt");
  await pollFor("the held request", () => llm.chatRequests().length, (k) => k > n);
  await front.steer("mention its size");
  gate.resolve();
  await reading;
  const steered = JSON.stringify(llm.chatRequests()[n + 1]?.body.messages.at(-1));
  // Cancel: the held step is abandoned and the turn ends cancelled.
  const hold = Promise.withResolvers<void>();
  cleanups.push(() => hold.resolve());
  llm.push({ text: "never shown", until: hold.promise });
  const m = llm.chatRequests().length;
  const slow = front.prompt("a slow one");
  await pollFor("the held request", () => llm.chatRequests().length, (k) => k > m);
  await front.cancel();
  await slow;
  // Read-only refuses the write at once: the turn ends without asking and without another request.
  llm.push({ toolCalls: [{ id: "call_b", name: "write_file", arguments: { path: "b.txt", content: "b\n" } }] });
  await front.prompt("write b.txt");
  await front.command("/rewind 2 conversation");
  await front.close();
  return { ...(await stored(llm, env, front.id())), help, commandRequests, steered };
}

/** Read back from disk with a fresh engine: what the front end left behind. */
async function stored(llm: ScriptedServer, env: ScriptedHome, id: string): Promise<Stored> {
  const engine = createEngine({ workspace: env.workspace, home: env.home });
  try {
    const s = await engine.resumeSession(id);
    const out: Stored = {
      model: s.model,
      turns: s.turns(),
      conversation: fold(s.history()),
      requests: llm.chatRequests().map((r) => ({ model: r.body.model, ...(r.body.reasoning_effort ? { effort: r.body.reasoning_effort } : {}) })),
      files: { a: existsSync(join(env.workspace, "a.txt")) ? readFileSync(join(env.workspace, "a.txt"), "utf8") : null, b: existsSync(join(env.workspace, "b.txt")) },
    };
    await s.close();
    return out;
  } finally {
    await engine.close();
  }
}

function expectSame(o: Outcome): void {
  expect(o.commandRequests).toBe(0);
  expect(o.help).toContain("/model");
  expect(o.model).toBe("other");
  expect(o.turns).toEqual([{ turn: 1, prompt: "write a.txt" }]);
  const other = { model: "other-model", effort: "low" };
  expect(o.requests).toEqual([{ model: "scripted-model" }, { model: "scripted-model" }, other, other, other, other]);
  expect(o.steered).toContain(JSON.stringify(steerMessage("mention its size")).slice(1, -1));
  expect(o.files).toEqual({ a: "a\n", b: false });
}

async function chatFront(llm: ScriptedServer, env: ScriptedHome): Promise<Outcome> {
  const engine = createEngine({ workspace: env.workspace, home: env.home });
  cleanups.push(() => engine.close());
  const st = new ChatState({ engine, config: {}, mode: "ask" });
  await st.attach(await engine.createSession(), (e) => {
    if (e.type === "approval_request") st.session.approve(e.callId, "once");
  });
  const printed: string[] = [];
  const ctx: SlashContext = { st, paint: plainPaint, print: (l) => printed.push(...l), pick: async () => undefined, clearScreen: () => {}, exit: () => {}, sessionChanged: () => {} };
  return script(llm, env, {
    id: () => st.session.id,
    prompt: async (text) => void (await st.session.submit(text)),
    command: async (text) => {
      const from = printed.length;
      expect(await runSlash(ctx, text)).toBe(true);
      return printed.slice(from).join("\n");
    },
    steer: async (text) => void st.session.steer(text),
    cancel: async () => st.session.cancel(),
    close: () => st.session.close(),
  });
}

async function serveFront(llm: ScriptedServer, env: ScriptedHome): Promise<Outcome> {
  const token = "conformance-token-0123456789abcdefghijkl";
  const server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "token", token }, workspace: env.workspace, version: "test", engineFactory: await engineFactoryFromConfig(env.home) });
  cleanups.push(() => server.stop());
  const call = async (path: string, method: string, body?: unknown) => {
    const r = await fetch(`http://${server.addr}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: method === "GET" ? undefined : JSON.stringify(body ?? {}) });
    return { status: r.status, body: (await r.json()) as any };
  };
  const { id } = (await call("/api/sessions", "POST", {})).body as { id: string };
  const history = async () => (await call(`/api/sessions/${id}/history`, "GET")).body.events as EngineEvent[];
  const ends = async () => (await history()).filter((e) => e.type === "turn_end").length;
  return script(llm, env, {
    id: () => id,
    prompt: async (text) => {
      const before = await ends();
      expect((await call(`/api/sessions/${id}/prompt`, "POST", { prompt: text })).status).toBe(202);
      const answered = new Set<string>();
      // Bounded by pollFor: each round answers the approvals the prompt caused, until its turn has ended.
      await pollFor("the turn's end", async () => {
        const h = await history();
        for (const e of h) {
          if (e.type === "approval_request" && !answered.has(e.callId) && !h.some((x) => x.type === "approval_resolved" && x.callId === e.callId)) {
            answered.add(e.callId);
            expect((await call(`/api/sessions/${id}/approvals/${e.callId}`, "POST", { decision: "once" })).status).toBe(200);
          }
        }
        return h.filter((e) => e.type === "turn_end").length;
      }, (n) => n > before);
      await pollFor("the session idle", async () => (await call("/api/sessions", "GET")).body.sessions.find((s: any) => s.id === id)?.busy, (busy) => busy === false);
    },
    command: async (text) => {
      const [name, ...rest] = text.slice(1).split(" ");
      const r = await call(`/api/sessions/${id}/command`, "POST", { name, arg: rest.join(" ") });
      expect(r.status).toBe(200);
      expect(r.body.ok).toBe(true);
      return r.body.text;
    },
    steer: async (text) => expect((await call(`/api/sessions/${id}/steer`, "POST", { text })).body.disposition).toBe("steer_accepted"),
    cancel: async () => expect((await call(`/api/sessions/${id}/cancel`, "POST", {})).status).toBe(200),
    close: () => server.stop(),
  });
}

async function acpFront(llm: ScriptedServer, env: ScriptedHome): Promise<Outcome> {
  const c = connect(env);
  cleanups.push(() => c.close());
  await c.conn.initialize(initParams({}));
  const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
  const say = async (text: string) => {
    const before = c.editor.text(s.sessionId).length;
    await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text }] });
    return c.editor.text(s.sessionId).slice(before);
  };
  return script(llm, env, {
    id: () => s.sessionId,
    prompt: async (text) => void (await say(text)), command: say,
    steer: async (text) => expect(await c.conn.extMethod(STEER_METHOD, { sessionId: s.sessionId, prompt: [{ type: "text", text }] })).toEqual({ disposition: "steer_accepted" }),
    cancel: () => c.conn.cancel({ sessionId: s.sessionId }),
    close: () => c.close(),
  });
}

test("chat, serve and ACP run the same script to the same session state and conversation", async () => {
  const outcomes: Outcome[] = [];
  for (const front of [chatFront, serveFront, acpFront]) {
    const { llm, env } = await setup();
    const o = await front(llm, env);
    expectSame(o);
    outcomes.push(o);
  }
  const [chat, serve, acp] = outcomes;
  expect(serve!.conversation).toEqual(chat!.conversation);
  expect(acp!.conversation).toEqual(chat!.conversation);
  expect(chat!.conversation).toEqual(WROTE_A);
});

/**
 * The part of the script `reasonix run` and `mcp serve` can do (one prompt per
 * call, the model and mode chosen per call): a session on a chosen model, a
 * prompt that writes, /help answered without the model, a prompt cancelled
 * while the model holds it, a write refused in read-only, and a rewind of the
 * conversation to before the cancelled turn.
 */
interface ShortFront {
  /** A new session on provider entry `model` runs `prompt` to its end in a mode that writes (answering "once" where asked): its id. */
  start(model: string, prompt: string): Promise<string>;
  /** `/help` as this front end takes it: its answer (a refusal that names what to use counts). */
  help(): Promise<string>;
  /** The next prompt of session `id`; once the model holds its request (`held` resolves), cancel it; resolves when the turn ended. */
  cancel(id: string, prompt: string, held: () => Promise<void>): Promise<void>;
  /** The next prompt of session `id`, run in read-only. */
  readOnly(id: string, prompt: string): Promise<void>;
  /** Rewind session `id`'s conversation to before `turn`, then let it go. */
  rewind(id: string, turn: number): Promise<void>;
}

/** The session as `reasonix sessions show --json` reads it (no lock: the front end may still hold it). */
async function shown(env: CliEnv, id: string): Promise<Pick<Stored, "turns" | "conversation">> {
  const r = await runCli(env, ["sessions", "show", id, "--json"]);
  expect(r.code).toBe(0);
  const s = JSON.parse(r.stdout) as { turns: Stored["turns"]; history: EngineEvent[] };
  return { turns: s.turns, conversation: fold(s.history) };
}

async function shortScript(llm: ScriptedServer, env: CliEnv, front: ShortFront): Promise<Stored & { help: string; helpRequests: number; beforeRewind: Pick<Stored, "turns" | "conversation"> }> {
  llm.push({ toolCalls: [{ id: "call_a", name: "write_file", arguments: { path: "a.txt", content: "a\n" } }] }, { text: "wrote a.txt" });
  const id = await front.start("other", "write a.txt");
  const before = llm.chatRequests().length;
  const help = await front.help();
  const helpRequests = llm.chatRequests().length - before;
  const hold = Promise.withResolvers<void>();
  cleanups.push(() => hold.resolve());
  llm.push({ text: "never shown", until: hold.promise });
  const m = llm.chatRequests().length;
  await front.cancel(id, "a slow one", async () => void (await pollFor("the held request", () => llm.chatRequests().length, (k) => k > m)));
  llm.push({ toolCalls: [{ id: "call_b", name: "write_file", arguments: { path: "b.txt", content: "b\n" } }] });
  await front.readOnly(id, "write b.txt");
  const beforeRewind = await shown(env, id);
  await front.rewind(id, 2);
  return { ...(await stored(llm, env, id)), help, helpRequests, beforeRewind };
}

async function shortChat(llm: ScriptedServer, env: CliEnv) {
  const engine = createEngine({ workspace: env.workspace, home: env.home });
  cleanups.push(() => engine.close());
  const st = new ChatState({ engine, config: {}, mode: "ask" });
  const printed: string[] = [];
  const ctx: SlashContext = { st, paint: plainPaint, print: (l) => printed.push(...l), pick: async () => undefined, clearScreen: () => {}, exit: () => {}, sessionChanged: () => {} };
  const slash = async (text: string) => {
    const from = printed.length;
    expect(await runSlash(ctx, text)).toBe(true);
    return printed.slice(from).join("\n");
  };
  return shortScript(llm, env, {
    start: async (model, prompt) => {
      // `reasonix chat --model other`
      await st.attach(await engine.createSession({ model }), (e) => {
        if (e.type === "approval_request") st.session.approve(e.callId, "once");
      });
      await st.session.submit(prompt);
      return st.session.id;
    },
    help: () => slash("/help"),
    cancel: async (_id, prompt, held) => {
      const turn = st.session.submit(prompt);
      await held();
      st.session.cancel();
      expect(await turn).toBe("cancelled");
    },
    readOnly: async (_id, prompt) => {
      await slash("/mode read-only");
      await st.session.submit(prompt);
    },
    rewind: async (_id, turn) => {
      await slash(`/rewind ${turn} conversation`);
      await st.session.close();
    },
  });
}

async function shortRun(llm: ScriptedServer, env: CliEnv) {
  return shortScript(llm, env, {
    start: async (model, prompt) => {
      const r = await runCli(env, ["run", "--model", model, "--permission-mode", "auto", "--output-format", "json", prompt]);
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout).session_id;
    },
    help: async () => {
      const r = await runCli(env, ["run", "/help"]);
      expect(r.code).toBe(0);
      return r.stdout;
    },
    cancel: async (id, prompt, held) => {
      const proc = Bun.spawn([process.execPath, mainTs, "run", "--resume", id, "--output-format", "json", prompt], { cwd: env.workspace, env: env.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      cleanups.push(() => proc.kill("SIGKILL"));
      await held();
      // Ctrl-C: the turn is cancelled and recorded, exit 130.
      proc.kill("SIGINT");
      expect(await proc.exited).toBe(130);
    },
    readOnly: async (id, prompt) => {
      const r = await runCli(env, ["run", "--resume", id, "--permission-mode", "read-only", "--output-format", "json", prompt]);
      // 3: stopped by a refused permission.
      expect({ code: r.code, reason: JSON.parse(r.stdout).reason }).toEqual({ code: 3, reason: "denied" });
    },
    rewind: async (id, turn) => {
      const r = await runCli(env, ["sessions", "rewind", id, String(turn), "--mode", "conversation", "--json"]);
      expect(r.code).toBe(0);
    },
  });
}

async function shortMcp(llm: ScriptedServer, env: CliEnv) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [mainTs, "mcp", "serve", "--allow-writes"], cwd: env.workspace, env: env.env, stderr: "pipe" });
  const client = new Client({ name: "conformance", version: "1" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  const call = caller(client);
  return shortScript(llm, env, {
    start: async (model, prompt) => {
      const r = await call("reasonix_run", { prompt, model, mode: "auto" });
      expect(r.isError).toBe(false);
      expect((await untilEnd(call, r.data.session_id)).end.reason).toBe("done");
      return r.data.session_id;
    },
    help: async () => {
      const r = await call("reasonix_run", { prompt: "/help" });
      expect(r.isError).toBe(true);
      return r.text;
    },
    cancel: async (id, prompt, held) => {
      const r = await call("reasonix_resume", { session_id: id, prompt, mode: "auto" });
      expect(r.isError).toBe(false);
      await held();
      expect((await call("reasonix_cancel", { session_id: id })).isError).toBe(false);
      expect((await untilEnd(call, id, r.data.seq)).end.reason).toBe("cancelled");
    },
    readOnly: async (id, prompt) => {
      const r = await call("reasonix_resume", { session_id: id, prompt, mode: "read-only" });
      expect(r.isError).toBe(false);
      expect((await untilEnd(call, id, r.data.seq)).end.reason).toBe("denied");
    },
    rewind: async (id, turn) => {
      expect((await call("reasonix_rollback", { session_id: id, turn, mode: "conversation" })).isError).toBe(false);
      await client.close();
    },
  });
}

test("reasonix run and mcp serve leave the same session as the chat for the part of the script they can do (cancel and rewind included)", async () => {
  const outcomes = [];
  for (const front of [shortChat, shortRun, shortMcp]) {
    const llm = await startScriptedOpenAI([]);
    const env = makeCliEnv(llm.url, { extraToml: OTHER.replace("{{LLM}}", llm.url) });
    cleanups.push(() => env.cleanup(), () => llm.close());
    const o = await front(llm, env);
    expect(o.helpRequests).toBe(0);
    expect(o.help).toContain("/help");
    expect(o.model).toBe("other");
    expect(o.beforeRewind.turns).toEqual([{ turn: 1, prompt: "write a.txt" }, { turn: 2, prompt: "a slow one" }, { turn: 3, prompt: "write b.txt" }]);
    // Rewound to before the cancelled turn: only the first is left.
    expect(o.turns).toEqual([{ turn: 1, prompt: "write a.txt" }]);
    expect(o.requests).toEqual([{ model: "other-model" }, { model: "other-model" }, { model: "other-model" }, { model: "other-model" }]);
    expect(o.files).toEqual({ a: "a\n", b: false });
    outcomes.push(o);
  }
  const [chat, run, mcp] = outcomes;
  for (const o of [run!, mcp!]) {
    expect(o.beforeRewind.conversation).toEqual(chat!.beforeRewind.conversation);
    expect(o.conversation).toEqual(chat!.conversation);
  }
  expect(chat!.beforeRewind.conversation).toEqual([
    ...WROTE_A,
    { t: "prompt", text: "a slow one" },
    { t: "end", reason: "cancelled" },
    { t: "prompt", text: "write b.txt" },
    { t: "tool", name: "write_file", input: { path: "b.txt", content: "b\n" }, status: "failed" },
    { t: "end", reason: "denied" },
  ]);
  expect(chat!.conversation).toEqual(WROTE_A);
});

test("reasonix run: /help is answered without the model; a command run cannot do says what to use", async () => {
  const llm = await startScriptedOpenAI([]);
  const ce = makeCliEnv(llm.url);
  cleanups.push(() => ce.cleanup(), () => llm.close());
  const help = await runCli(ce, ["run", "/help"]);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain("/compact");
  expect(help.stdout).not.toContain("/model");
  const model = await runCli(ce, ["run", "/model other"]);
  expect(model.code).toBe(2);
  expect(model.stderr).toContain("/model is not available in reasonix run: pass --model");
  expect(llm.chatRequests()).toHaveLength(0);
});

test("ACP: a command the editor cannot show says what to use instead; /effort and /rewind are announced; none reaches the model", async () => {
  const { llm, env } = await setup();
  const c = connect(env);
  cleanups.push(() => c.close());
  await c.conn.initialize(initParams({}));
  const since = c.editor.mark();
  const s = await c.conn.newSession({ cwd: env.workspace, mcpServers: [] });
  await c.editor.waitFor((u) => u.update.sessionUpdate === "available_commands_update", since);
  const announced = c.editor.updates.find((u) => u.update.sessionUpdate === "available_commands_update")!.update as { availableCommands: { name: string }[] };
  expect(announced.availableCommands.map((x) => x.name)).toEqual(expect.arrayContaining(["help", "mode", "model", "effort", "rewind", "compact", "mcp", "goal"]));
  const say = async (text: string) => {
    const before = c.editor.text(s.sessionId).length;
    expect((await c.conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text }] })).stopReason).toBe("end_turn");
    return c.editor.text(s.sessionId).slice(before);
  };
  expect(await say("/new")).toBe("/new is not available in ACP: start a new session from your editor");
  expect(await say("/cost")).toBe("/cost is a terminal chat command, not available in ACP: run it in reasonix chat");
  expect(await say("/mode yolo")).toBe('unknown mode "yolo" (one of ask, auto, plan, read-only)');
  expect(llm.chatRequests()).toHaveLength(0);
});
