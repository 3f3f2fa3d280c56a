// MCP servers an editor passes in session/new and session/load (issue 33):
// a malformed entry is refused naming mcpServers[i] and the field, and an
// open session cannot be loaded again for another workspace.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedOpenAI } from "../../testing/scripted-llm.ts";
import { connect, initParams, makeAcpEnv } from "./helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const llm = await startScriptedOpenAI([]);
  const env = makeAcpEnv(llm.url);
  const c = connect(env);
  cleanups.push(() => env.cleanup(), () => llm.close(), () => c.close());
  await c.conn.initialize(initParams());
  return { env, ...c };
}

const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("accepted"); }, (e: { code: number; message: string; data?: unknown }) => e);

test("a malformed mcpServers entry is refused naming mcpServers[1] and the field, not with a validation dump", async () => {
  const { conn, env } = await setup();
  const good = { name: "fine", command: "/bin/true", args: [], env: [] };
  const cases: [unknown, RegExp][] = [
    [{ name: "bad", command: 42, args: [], env: [] }, /mcpServers\[1\]\.command/],
    [{ name: "bad", command: "/bin/true", args: "not-a-list", env: [] }, /mcpServers\[1\]\.args/],
    [{ name: "bad", type: "http", url: "http://127.0.0.1:1/mcp" }, /mcpServers\[1\]\.headers/],
    [{ command: "/bin/true", args: [], env: [] }, /mcpServers\[1\]\.name/],
  ];
  for (const [bad, field] of cases) {
    const e = await failure(conn.newSession({ cwd: env.workspace, mcpServers: [good, bad] as never }));
    expect(e.code).toBe(-32602);
    const said = `${e.message} ${JSON.stringify(e.data ?? "")}`;
    expect(said).toMatch(field);
    // One sentence, not the schema library's issue list.
    expect(said).not.toMatch(/invalid_type|invalid_union|"path":|unionErrors|"issues"/);
  }
});

test("an open session cannot be loaded again with another cwd", async () => {
  const { conn, env } = await setup();
  const other = realpathSync(mkdtempSync(join(tmpdir(), "rx-acp-other-")));
  cleanups.push(() => rmSync(other, { recursive: true, force: true }));
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  // Same workspace: fine (a reload).
  await conn.loadSession({ sessionId: s.sessionId, cwd: env.workspace, mcpServers: [] });
  const e = await failure(conn.loadSession({ sessionId: s.sessionId, cwd: other, mcpServers: [] }));
  expect(e.code).toBe(-32602);
  expect(`${e.message} ${JSON.stringify(e.data ?? "")}`).toMatch(/cwd/);
  expect(e.message).toContain(env.workspace);
});
