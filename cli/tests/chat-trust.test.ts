// The terminal chat's one-time trust question, in a real tmux pane: a
// workspace whose reasonix.toml wants `auto` asks once; "no" is remembered
// until the file changes; "yes" records the approval and the mode applies.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatFixture, hasTmux } from "./chat-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED chat trust question: tmux is not installed (apt-get install tmux)");

const f = chatFixture();

describe.skipIf(skip)("terminal chat: trust question before the chat starts", () => {
  test("asked once with the loosening settings; no is remembered until the file changes; yes applies the mode", async () => {
    await f.setup([]);
    const { ce } = f;
    writeFileSync(join(ce.workspace, "reasonix.toml"), '[permissions]\nmode = "auto"\n');

    let p = f.chat();
    let s = await p.waitFor("Trust these files?");
    expect(s).toContain('permissions.mode = "auto"');
    expect(s).toContain("reasonix.toml:2");
    p.keys("n", "Enter");
    await p.waitFor("mode ask");
    p.kill();

    // Declined: not asked again for the same content.
    p = f.chat();
    s = await p.waitFor("mode ask");
    expect(p.all()).not.toContain("Trust these files?");
    p.kill();

    // The file changed: asked again; yes records it and auto mode applies.
    writeFileSync(join(ce.workspace, "reasonix.toml"), '[permissions]\nmode = "auto"\n# reviewed\n');
    p = f.chat();
    await p.waitFor("Trust these files?");
    p.keys("y", "Enter");
    await p.waitFor("mode auto");
    expect(readFileSync(join(ce.home, "config.toml"), "utf8")).toContain("[trust.workspaces.");
  });
});
