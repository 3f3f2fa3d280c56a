// `@` completion in the terminal chat searches the whole workspace tree
// fuzzily (as the web UI's composer does), .gitignore respected; a token
// that names a folder level still lists that level first.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { chatFixture, closeMenu, hasTmux, ready } from "./chat-helpers.ts";

const hasGit = spawnSync("git", ["--version"], { stdio: "ignore" }).status === 0;
const skip = !hasTmux() || !hasGit;
if (skip) console.warn("SKIPPED terminal chat @ completion tests: tmux or git is not installed (apt-get install tmux git)");

const f = chatFixture();

describe.skipIf(skip)("reasonix chat @ completion across the tree", () => {
  test("a few letters of a deep file's path find it (fuzzy); a .gitignored file is never offered; the reference reaches the request", async () => {
    await f.setup([{ text: "read the deep one" }]);
    const ws = f.ce.workspace;
    mkdirSync(join(ws, "pkg/deep"), { recursive: true });
    mkdirSync(join(ws, "build"), { recursive: true });
    writeFileSync(join(ws, "pkg/deep/calculator.py"), "x = 1\n");
    writeFileSync(join(ws, "build/calc_generated.py"), "y = 2\n");
    writeFileSync(join(ws, "calc_gen_notes.md"), "notes\n");
    // .gitignore counts inside a repository (as for ripgrep and the web composer).
    expect(spawnSync("git", ["init", "-q", ws]).status).toBe(0);
    writeFileSync(join(ws, ".gitignore"), "build/\n");
    const p = f.chat();
    await ready(p);
    // Letters in order across folders: p…deep…calc.
    p.type("explain @deepcalc");
    const menu = await p.waitFor("pkg/deep/calculator.py");
    expect(menu).not.toContain("calc_generated");
    p.keys("Tab");
    await p.waitFor("explain @pkg/deep/calculator.py");
    // The same letters match a tracked file and an ignored one: only the tracked one is offered (the pick ended with a space).
    p.type("and @calc_gen");
    const menu2 = await p.waitFor((s) => s.includes("explain @pkg/deep/calculator.py and @calc_gen") && s.includes("calc_gen_notes.md"));
    expect(menu2).not.toContain("calc_generated");
    await closeMenu(p);
    p.keys("C-u");
    await p.waitFor((s) => !s.includes("explain @pkg"));
    // Ends with a word, not the @ token: Enter sends instead of picking from a menu.
    p.send("explain @pkg/deep/calculator.py please");
    await p.waitFor("read the deep one");
    const sent = f.llm.chatRequests()[0]!.body.messages.filter((m: any) => m.role === "user").at(-1).content;
    expect(sent).toContain("@pkg/deep/calculator.py");
  }, 60_000);
});
