// The terminal chat's one-time trust question, in a real tmux pane: a
// workspace whose reasonix.toml wants `auto` asks once; "no" is remembered
// until the file changes; "yes" records the approval and the mode applies.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { hasTmux, startChat } from "./chat-helpers.ts";
import { makeCliEnv, type CliEnv } from "./run-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED chat trust question: tmux is not installed (apt-get install tmux)");

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(skip)("terminal chat: trust question before the chat starts", () => {
  test("asked once with the loosening settings; no is remembered until the file changes; yes applies the mode", async () => {
    const llm: ScriptedServer = await startScriptedOpenAI([]);
    const ce: CliEnv = makeCliEnv(llm.url);
    cleanups.push(() => llm.close(), () => ce.cleanup());
    writeFileSync(join(ce.workspace, "reasonix.toml"), '[permissions]\nmode = "auto"\n');

    let p = startChat(ce);
    cleanups.push(() => p.kill());
    let s = await p.waitFor("Trust these files?");
    expect(s).toContain('permissions.mode = "auto"');
    expect(s).toContain("reasonix.toml:2");
    p.keys("n", "Enter");
    await p.waitFor("mode ask");
    p.kill();

    // Declined: not asked again for the same content.
    p = startChat(ce);
    cleanups.push(() => p.kill());
    s = await p.waitFor("mode ask");
    expect(p.all()).not.toContain("Trust these files?");
    p.kill();

    // The file changed: asked again; yes records it and auto mode applies.
    writeFileSync(join(ce.workspace, "reasonix.toml"), '[permissions]\nmode = "auto"\n# reviewed\n');
    p = startChat(ce);
    cleanups.push(() => p.kill());
    await p.waitFor("Trust these files?");
    p.keys("y", "Enter");
    await p.waitFor("mode auto");
    expect(readFileSync(join(ce.home, "config.toml"), "utf8")).toContain("[trust.workspaces.");
  });
});
