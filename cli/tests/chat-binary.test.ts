// The compiled binary's chat, as users meet it: plain `reasonix` in a tmux
// pane, a streamed answer, an approval, and the session afterwards in the
// binary's own `reasonix sessions`.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { builtDist, type BuiltDist } from "../../scripts/lib/built-dist.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { hasTmux, startChat } from "./chat-helpers.ts";
import { makeCliEnv, type CliEnv } from "./run-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED compiled-binary chat test: tmux is not installed (apt-get install tmux)");

let dist: BuiltDist;
beforeAll(async () => {
  if (!skip) dist = await builtDist();
}, 240_000);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(skip)("compiled binary: plain `reasonix` opens the chat", () => {
  test("markdown answer, approval writes the file, session listed by the binary", async () => {
    const llm: ScriptedServer = await startScriptedOpenAI([
      { text: "## Plan\n\n- **write** the file\n- report back\n" },
      { toolCalls: [{ name: "write_file", arguments: { path: "bin.txt", content: "from the binary\n" } }] },
      { text: "Done: bin.txt written." },
    ]);
    const ce: CliEnv = makeCliEnv(llm.url);
    cleanups.push(() => llm.close(), () => ce.cleanup());
    const p = startChat(ce, [], { bin: [dist.binary] });
    cleanups.push(() => p.kill());
    await p.waitFor("mode ask");
    p.type("plan it");
    p.keys("Enter");
    let s = await p.waitFor("report back");
    expect(s).toContain("Plan");
    expect(s).not.toContain("## Plan");
    p.type("write it");
    p.keys("Enter");
    await p.waitFor("Allow write_file");
    p.keys("y");
    s = await p.waitFor("Done: bin.txt written.");
    expect(readFileSync(join(ce.workspace, "bin.txt"), "utf8")).toBe("from the binary\n");
    p.keys("C-c");
    p.keys("C-c");
    s = await p.waitFor("[exit 0]", { all: true });
    const id = /reasonix chat --resume (\S+)/.exec(s)![1]!;
    const list = Bun.spawnSync([dist.binary, "sessions", "list", "--json"], { cwd: ce.workspace, env: ce.env });
    expect(list.exitCode).toBe(0);
    expect(list.stdout.toString()).toContain(id);
  });
});
