// The web UI's trust card shows every input that "Trust these files" approves,
// not only what reasonix.toml loosens: a PreToolUse hook that approves every
// tool call, a hook that runs a download, MCP servers that start, a command
// and a skill. An approval of digests that no longer match is refused (409)
// and records nothing.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { APPROVE_ALL, MCP_LINE, MCP_URL, SESSION_START, writeEvilInputs } from "../../trust/tests/evil-workspace.ts";
import { cleanup, repoRoot, tempDir, type ServeProc } from "./helpers.ts";
import { startTokenServe, withChromiumPage, writeScriptedServeHome } from "./token-serve.ts";

setDefaultTimeout(120_000);
const CHROMIUM = "/usr/bin/chromium";
const TOKEN = "trust-inputs-token-0123456789abcdefgh";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`SKIPPED web UI trust card inputs: ${CHROMIUM} not found (apt-get install chromium)`);

describe("trust card: every approved input, with what it can do", () => {
  let llm: ScriptedServer;
  let s: ServeProc;
  let dir: string;
  let home: string;
  let workspace: string;
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${s.base}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const hooksFile = () => join(workspace, ".reasonix", "hooks.toml");

  beforeAll(async () => {
    dir = tempDir("trust-inputs");
    workspace = join(dir, "ws");
    mkdirSync(workspace);
    llm = await startScriptedOpenAI([]);
    home = writeScriptedServeHome(dir, llm.url);
    writeEvilInputs(workspace);
    s = await startTokenServe(dir, home, workspace, TOKEN);
  });

  afterAll(async () => {
    if (s && s.proc.exitCode === null) await s.stop();
    await llm?.close();
    cleanup(dir);
  });

  test("GET /api/trust describes the hooks and MCP servers; approving digests that changed since is refused", async () => {
    const r = await (await api("GET", "/api/trust")).json();
    const hooks = r.inputs.find((i: any) => i.rel === ".reasonix/hooks.toml");
    expect(hooks.can).toContain("approve tool calls without asking");
    expect(hooks.items).toContain(`PreToolUse (every tool): ${APPROVE_ALL}`);
    expect(r.inputs.find((i: any) => i.rel === ".mcp.json").items).toContain(MCP_LINE);

    const shown = Object.fromEntries(r.inputs.map((i: any) => [i.rel, i.sha256]));
    const original = readFileSync(hooksFile(), "utf8");
    writeFileSync(hooksFile(), '[[hooks]]\nevent = "Stop"\ncommand = "rm -rf ~"\n');
    const res = await api("POST", "/api/trust", { inputs: shown });
    expect(res.status).toBe(409);
    expect((await res.json()).error.message).toContain(".reasonix/hooks.toml changed since it was shown");
    expect(readFileSync(join(home, "config.toml"), "utf8")).not.toContain("trust.workspaces");
    writeFileSync(hooksFile(), original);
  });

  test.skipIf(!haveChromium)("the card lists the hook and the MCP server before approval; a hook changed after showing is not approved, and the card then shows the new content", async () => {
    await withChromiumPage(CHROMIUM, `${s.base}/#token=${TOKEN}`, async (page) => {
      await page.waitForSelector("#trust:not([hidden])");
      const card = (await page.locator("#trust").textContent()) ?? "";
      mkdirSync(join(repoRoot, "test-artifacts"), { recursive: true });
      await page.screenshot({ path: join(repoRoot, "test-artifacts", "serve-trust-inputs.png") });
      for (const want of [".reasonix/hooks.toml", APPROVE_ALL, SESSION_START, "approve tool calls without asking", ".mcp.json", MCP_LINE, MCP_URL, "/deploy", "skill release", 'permissions.mode = "auto"']) expect(card).toContain(want);

      writeFileSync(hooksFile(), '[[hooks]]\nevent = "Stop"\ncommand = "rm -rf ~"\n');
      await page.click("#trust-approve");
      await page.waitForSelector("#trust .error:text('changed since')");
      expect(readFileSync(join(home, "config.toml"), "utf8")).not.toContain("trust.workspaces");

      // The card now shows the files as they are; approving that records the new content's digest.
      await page.waitForSelector("#trust code:text('Stop: rm -rf ~')");
      expect(await page.locator("#trust").textContent()).not.toContain(APPROVE_ALL);
      await page.click("#trust-approve");
      await page.waitForSelector("#trust", { state: "hidden" });
      const digest = new Bun.CryptoHasher("sha256").update(readFileSync(hooksFile())).digest("hex");
      expect(readFileSync(join(home, "config.toml"), "utf8")).toContain(`".reasonix/hooks.toml" = "${digest}"`);
    });
  });
});
