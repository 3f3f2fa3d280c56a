// `reasonix setup` on a real terminal (tmux): menus, the hidden key prompt,
// the connection test against the scripted server, then the files it writes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { hasTmux, startChat, type Pane } from "./chat-helpers.ts";
import type { CliEnv } from "./run-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED reasonix setup on a terminal: tmux is not installed (.ci/run installs it)");

describe.skipIf(skip)("reasonix setup on a terminal (tmux)", () => {
  let llm: ScriptedServer;
  let ce: CliEnv;
  let pane: Pane | undefined;
  beforeAll(async () => {
    llm = await startScriptedOpenAI([], { models: ["alpha", "beta"] });
    const root = realpathSync(mkdtempSync(join(tmpdir(), "rx-setup-tty-")));
    const home = join(root, "home");
    mkdirSync(join(root, "ws"), { recursive: true });
    const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, REASONIX_HOME: home, LANG: "C.UTF-8" };
    ce = { home, workspace: join(root, "ws"), env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
  });
  afterAll(async () => {
    pane?.kill();
    await llm?.close();
    ce?.cleanup();
  });

  /** The custom-URL preset up to the key question: URL, then the defaults (protocol, name "local", a key, LOCAL_API_KEY). */
  async function customUrlUpToKey(p: Pane): Promise<void> {
    await p.waitFor("choose 1-8 [1]:");
    p.send("8");
    await p.waitFor("Base URL of the OpenAI-compatible API");
    p.send(llm.url);
    for (const q of ["Wire protocol?", "Name for this provider [local]:", "Does this API need a key?", "Variable to store the key under [LOCAL_API_KEY]:"]) {
      await p.waitFor(q);
      p.keys("Enter");
    }
  }

  test("custom URL: the key is never shown, the test reports latency, the picked model becomes default_model", async () => {
    pane = startChat(ce, ["setup"], { env: { NO_COLOR: "1" }, cols: 400 });
    const p = pane;
    await p.waitFor("Which provider?");
    await customUrlUpToKey(p);
    await p.waitFor("(stored as LOCAL_API_KEY; input hidden):");
    p.send("sk-tty-secret-42");
    await p.waitFor(/connected in \d+ ms \(2 models listed\)/);
    await p.waitFor("Which model?");
    p.send("2");
    const done = await p.waitFor(/\[exit \d+\]/, { all: true });
    expect(done).toContain("[exit 0]");
    expect(done).toContain(`Saved "local" (beta) to ${join(ce.home, "config.toml")}, its key as LOCAL_API_KEY in ${join(ce.home, ".env")} (mode 0600); default_model = "local".`);
    expect(done).not.toContain("sk-tty-secret-42");

    const cfg = parse(readFileSync(join(ce.home, "config.toml"), "utf8")) as any;
    expect(cfg.default_model).toBe("local");
    expect(cfg.providers).toEqual([{ name: "local", kind: "openai", base_url: llm.url, model: "beta", api_key_env: "LOCAL_API_KEY" }]);
    expect(readFileSync(join(ce.home, ".env"), "utf8")).toBe("LOCAL_API_KEY=sk-tty-secret-42\n");
    expect(statSync(join(ce.home, ".env")).mode & 0o777).toBe(0o600);
    // The test used the typed key before anything was saved.
    expect(llm.requests[0]!.headers.authorization).toBe("Bearer sk-tty-secret-42");
  }, 90_000);

  test("Ctrl-C at a question cancels: exit 2, no error: line, nothing written", async () => {
    pane?.kill();
    const before = readFileSync(join(ce.home, "config.toml"), "utf8");
    pane = startChat(ce, ["setup"], { env: { NO_COLOR: "1" }, cols: 400 });
    await pane.waitFor("choose 1-8 [1]:");
    pane.keys("C-c");
    const done = await pane.waitFor(/\[exit \d+\]/, { all: true });
    // A cancellation the user asked for is said plainly, not as an error.
    expect(done).toContain("setup cancelled; nothing was written");
    expect(done).not.toContain("error:");
    expect(done).toContain("[exit 2]");
    expect(readFileSync(join(ce.home, "config.toml"), "utf8")).toBe(before);
  }, 60_000);

  test("reasonix web on first use (no provider) runs the same wizard, then serves with the new provider", async () => {
    pane?.kill();
    rmSync(join(ce.home, "config.toml"));
    pane = startChat(ce, ["web", "--no-open"], { env: { NO_COLOR: "1" }, cols: 400 });
    const p = pane;
    await p.waitFor("No model provider is configured yet. Let's add one");
    await customUrlUpToKey(p);
    // LOCAL_API_KEY is stored from the first test: keep it.
    await p.waitFor("A key is already stored as LOCAL_API_KEY");
    p.keys("Enter");
    await p.waitFor("Which model?");
    p.keys("Enter");
    const screen = await p.waitFor(/http:\/\/127\.0\.0\.1:\d+\/#token=/);
    expect(screen).toContain('Saved "local" (alpha)');
    expect(screen).not.toContain("no model provider is configured");
    p.keys("C-c");
    await p.waitFor(/\[exit \d+\]/, { all: true });
  }, 90_000);
});
