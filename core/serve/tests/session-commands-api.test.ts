// The web UI's /compact and /mcp (POST /api/sessions/:id/command), #note (POST /api/note) and the MCP
// servers' prompts in GET /api/commands, against a real stdio MCP server
// (@modelcontextprotocol/server-everything, sandboxed) and the scripted model.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../sandbox/index.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { engineFactoryFromConfig } from "../engine.ts";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, repoRoot, tempDir, waitFor } from "./helpers.ts";

setDefaultTimeout(90_000);
const everythingJs = join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const nodeBin = Bun.which("node");
const sandbox = await probeSandbox();
const skip = !existsSync(everythingJs) || !nodeBin || !sandbox.available;
if (skip) console.warn(`SKIPPED web /compact and /mcp tests: ${!existsSync(everythingJs) ? "server-everything is not installed (npm ci)" : !nodeBin ? "node is not on PATH" : `the OS sandbox is unavailable (${sandbox.cause})`}`);

const TOKEN = "session-commands-token-0123456789abc";
let llm: ScriptedServer;
let server: RunningServer;
let dir: string;
let workspace: string;
const stateBefore = process.env.XDG_STATE_HOME;

const isCompactionRequest = (req: { body: any }) => String(req.body.messages.at(-1)?.content).includes("<compaction-request>");

beforeAll(async () => {
  if (skip) return;
  dir = tempDir("rx-session-cmds-");
  llm = await startScriptedOpenAI([
    { text: "OLD-ANSWER" },
    { text: "second answer" },
    (req) => (isCompactionRequest(req) ? { text: "WEB-SUMMARY" } : { kind: "error", status: 400, message: "expected a compaction request" }),
    { text: "after compaction" },
  ]);
  const home = join(dir, "home");
  workspace = join(dir, "ws");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  mkdirSync(workspace, { recursive: true });
  process.env.XDG_STATE_HOME = join(dir, "state");
  writeFileSync(
    join(home, "config.toml"),
    [
      'default_model = "s"',
      "[[providers]]",
      'name = "s"', 'kind = "openai"', `base_url = "${llm.url}"`, 'model = "m"',
      "[[plugins]]",
      'name = "everything"', `command = ${JSON.stringify(nodeBin)}`, `args = [${JSON.stringify(everythingJs)}, "stdio"]`,
      "[mcp]", "startup_grace_seconds = 60",
      "",
    ].join("\n"),
  );
  server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "token", token: TOKEN }, workspace, version: "test", defaultModel: "s", engineFactory: await engineFactoryFromConfig(home) });
});
afterAll(async () => {
  await server?.stop();
  await llm?.close();
  if (dir) cleanup(dir);
  if (stateBefore === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = stateBefore;
});

const call = (path: string, method: string, body?: unknown) =>
  fetch(`http://${server.addr}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: method === "GET" ? undefined : JSON.stringify(body ?? {}) });
const idle = (id: string) => waitFor(`session ${id} idle`, async () => !((await (await call(`/api/sessions/${id}`, "GET")).json()) as any).busy && true, 30_000);

describe.skipIf(skip)("web UI session commands", () => {
  test("/mcp lists the server once it is up; its prompts join GET /api/commands with description and argument hint", async () => {
    const { id } = (await (await call("/api/sessions", "POST", {})).json()) as { id: string };
    const first = (await (await call("/api/commands", "GET")).json()) as any;
    expect(first.commands).toEqual(expect.arrayContaining([expect.objectContaining({ name: "compact", source: "session" }), expect.objectContaining({ name: "mcp", source: "session" })]));
    const listing = await waitFor("server-everything ready", async () => {
      const r = (await (await call(`/api/sessions/${id}/command`, "POST", { name: "mcp" })).json()) as { ok: boolean; text: string };
      return r.text.includes("ready") && r;
    }, 60_000);
    expect(listing.ok).toBe(true);
    expect(listing.text).toContain("everything [stdio, user] ready");
    expect(listing.text).toContain("mcp__everything__echo");
    expect(listing.text).toContain("/mcp__everything__simple-prompt");
    const cat = (await (await call("/api/commands", "GET")).json()) as any;
    expect(cat.commands.find((c: any) => c.name === "mcp__everything__args-prompt")).toEqual({
      name: "mcp__everything__args-prompt",
      description: "A prompt with two arguments, one required and one optional",
      argumentHint: "<city> [state]",
      kind: "mcp-prompt",
      scope: "mcp",
      source: "mcp:everything",
    });
    const bad = await call(`/api/sessions/${id}/command`, "POST", { name: "rm" });
    expect(bad.status).toBe(400);
  });

  test("/compact summarizes the session; the next request has the summary instead of the old middle", async () => {
    const { id } = (await (await call("/api/sessions", "POST", {})).json()) as { id: string };
    expect((await call(`/api/sessions/${id}/prompt`, "POST", { prompt: "OLD-QUESTION" })).status).toBe(202);
    await waitFor("first answer", () => llm.chatRequests().length === 1 && true);
    await idle(id);
    expect((await call(`/api/sessions/${id}/prompt`, "POST", { prompt: "second" })).status).toBe(202);
    await waitFor("second answer", () => llm.chatRequests().length === 2 && true);
    await idle(id);
    const r = (await (await call(`/api/sessions/${id}/command`, "POST", { name: "compact" })).json()) as any;
    expect(r).toMatchObject({ ok: true, compacted: true });
    expect(isCompactionRequest(llm.chatRequests()[2]!)).toBe(true);
    expect((await call(`/api/sessions/${id}/prompt`, "POST", { prompt: "third" })).status).toBe(202);
    await waitFor("third request", () => llm.chatRequests().length === 4 && true);
    const [before, after] = [llm.chatRequests()[1]!.body, llm.chatRequests()[3]!.body];
    expect(JSON.stringify(after.messages[0])).toBe(JSON.stringify(before.messages[0]));
    expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
    const text = JSON.stringify(after.messages);
    expect(text).toContain("WEB-SUMMARY");
    expect(text).not.toContain("OLD-QUESTION");
    expect(text).not.toContain("OLD-ANSWER");
  });

  test("POST /api/note appends a #note to the project instructions (the UI asked first); other text is refused", async () => {
    const r = await call("/api/note", "POST", { text: "#web note: keep PRs small" });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ path: "AGENTS.md", created: true, message: expect.stringContaining("noted in AGENTS.md") });
    expect(readFileSync(join(workspace, "AGENTS.md"), "utf8")).toBe("- web note: keep PRs small\n");
    const bad = await call("/api/note", "POST", { text: "just a prompt" });
    expect(bad.status).toBe(400);
    expect(readFileSync(join(workspace, "AGENTS.md"), "utf8")).toBe("- web note: keep PRs small\n");
  });
});
