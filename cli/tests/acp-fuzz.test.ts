// Protocol fuzz: 200 malformed or out-of-order frames at `reasonix acp` (the
// real process on stdio). Every request gets exactly one answer with the
// right JSON-RPC error, notifications and stray responses get none, stdout
// carries only JSON-RPC frames, and the agent keeps serving afterwards.
import { afterEach, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeAcpEnv } from "../../core/acp/tests/helpers.ts";
import { mainTs } from "./run-helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Case {
  frame: string;
  /** The answer expected: by id, or with id null; none for notifications and stray responses. */
  expect?: { id: number | null; code: number | "result" };
}

function cases(n: number, seed: number): Case[] {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  let nextId = 1000;
  const req = (method: string, params: unknown) => {
    const id = nextId++;
    return { id, frame: JSON.stringify({ jsonrpc: "2.0", id, method, params }) };
  };
  const gens: (() => Case)[] = [
    () => {
      const { frame } = req("session/new", { cwd: "/tmp", mcpServers: [] });
      return { frame: frame.slice(0, 1 + Math.floor(r() * (frame.length - 2))), expect: { id: null, code: -32700 } };
    },
    () => {
      let s = "{";
      for (let i = 0; i < 5 + r() * 40; i++) s += String.fromCharCode(33 + Math.floor(r() * 90));
      try {
        JSON.parse(s);
        s += "{"; // never valid by accident
      } catch {}
      return { frame: s, expect: { id: null, code: -32700 } };
    },
    () => ({ frame: pick(["42", '"text"', "null", "true", "-1.5"]), expect: { id: null, code: -32600 } }),
    () => ({ frame: JSON.stringify([JSON.parse(req("initialize", { protocolVersion: 1 }).frame)]), expect: { id: null, code: -32600 } }),
    () => {
      const { id, frame } = req(pick(["nope", "session/explode", "fs/read_text_file", "_vendor/unknown", "initialise"]), {});
      return { frame, expect: { id, code: -32601 } };
    },
    () => {
      const [method, params] = pick<[string, unknown]>([
        ["session/new", {}],
        ["session/new", { cwd: 7, mcpServers: [] }],
        ["session/prompt", { sessionId: 5 }],
        ["session/load", { sessionId: [], cwd: "/", mcpServers: [] }],
        ["session/set_mode", { sessionId: "s" }],
        ["session/cancel_request_typo", undefined],
      ]);
      const { id, frame } = req(method, params);
      return { frame, expect: { id, code: method.endsWith("typo") ? -32601 : -32602 } };
    },
    () => {
      const [method, params] = pick<[string, unknown]>([
        ["session/prompt", { sessionId: "no-such-session", prompt: [{ type: "text", text: "hi" }] }],
        ["session/set_mode", { sessionId: "no-such-session", modeId: "auto" }],
        ["session/close", { sessionId: "no-such-session" }],
        ["session/load", { sessionId: "../../etc/passwd", cwd: "/", mcpServers: [] }],
        ["session/new", { cwd: "relative/path", mcpServers: [] }],
        ["_reasonix.io/session/steer", { sessionId: "no-such-session", prompt: [{ type: "text", text: "x" }] }],
        ["session/set_model", { sessionId: "no-such-session" }],
      ]);
      const { id, frame } = req(method, params);
      return { frame, expect: { id, code: -32602 } };
    },
    () => ({ frame: JSON.stringify({ jsonrpc: "2.0", method: pick(["session/cancel", "unknown/notification"]), params: { sessionId: "x" } }) }),
    () => ({ frame: JSON.stringify({ jsonrpc: "2.0", id: 900000 + Math.floor(r() * 1000), result: {} }) }),
    () => ({ frame: JSON.stringify({ jsonrpc: "2.0", id: { nested: true }, method: "initialize", params: {} }), expect: { id: null, code: -32600 } }),
  ];
  return Array.from({ length: n }, () => pick(gens)());
}

test("200 malformed or out-of-order frames: each request answered with the right error, and the agent keeps serving", async () => {
  const env = makeAcpEnv("http://127.0.0.1:9/v1");
  cleanups.push(() => env.cleanup());
  const proc = Bun.spawn([process.execPath, mainTs, "acp"], {
    cwd: env.workspace,
    env: { ...process.env, REASONIX_HOME: env.home, NO_COLOR: "1" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  cleanups.push(() => proc.kill("SIGKILL"));
  const lines: string[] = [];
  const reader = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const c of proc.stdout) {
      buf += dec.decode(c, { stream: true });
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    }
  })();
  const all = cases(200, 15);
  for (const c of all) proc.stdin.write(`${c.frame}\n`);
  await proc.stdin.flush();
  const expected = all.filter((c) => c.expect).length;
  for (let i = 0; i < 200 && lines.length < expected; i++) await Bun.sleep(50);

  // Still serving: a proper handshake and session after the noise.
  proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
  proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: env.workspace, mcpServers: [] } })}\n`);
  await proc.stdin.flush();
  for (let i = 0; i < 200 && !lines.some((l) => l.includes('"id":2')); i++) await Bun.sleep(50);

  const frames = lines.map((l) => JSON.parse(l)); // every stdout line is JSON
  for (const f of frames) expect(f.jsonrpc).toBe("2.0");
  const byId = new Map<number, any[]>();
  for (const f of frames) if (typeof f.id === "number") byId.set(f.id, [...(byId.get(f.id) ?? []), f]);
  for (const c of all.filter((c) => c.expect && c.expect.id !== null)) {
    const got = byId.get(c.expect!.id!) ?? [];
    expect({ frame: c.frame, answers: got.length }).toEqual({ frame: c.frame, answers: 1 });
    expect({ frame: c.frame, code: got[0].error?.code }).toEqual({ frame: c.frame, code: c.expect!.code });
  }
  const nullIds = frames.filter((f) => f.id === null).map((f) => f.error.code).sort();
  expect(nullIds).toEqual(all.filter((c) => c.expect?.id === null).map((c) => c.expect!.code as number).sort());
  // Invalid params name the field.
  for (const f of frames.filter((f) => f.error?.code === -32602)) expect(JSON.stringify(f.error.data ?? f.error.message)).toMatch(/sessionId|cwd|modeId|prompt|modelId|field/);
  expect(byId.get(1)![0].result.protocolVersion).toBe(1);
  expect(typeof byId.get(2)![0].result.sessionId).toBe("string");
  expect(proc.exitCode).toBe(null);
  proc.stdin.end();
  expect(await proc.exited).toBe(0);
  await reader;
  // Diagnostics went to the log file (owner-only), never to stdout.
  const log = join(env.home, "logs", "acp.log");
  expect(readFileSync(log, "utf8")).toContain("client hung up");
  expect(statSync(log).mode & 0o777).toBe(0o600);
}, 60_000);
