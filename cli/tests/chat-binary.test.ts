// The compiled binary's chat, as users meet it: plain `reasonix` in a tmux
// pane, a streamed answer, an approval, and the session afterwards in the
// binary's own `reasonix sessions`.
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { builtDist, type BuiltDist } from "../../scripts/lib/built-dist.ts";
import { answer, chatFixture, hasTmux } from "./chat-helpers.ts";
import { BUILD_HOOK_MS } from "../../remote/testing/test-build.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED compiled-binary chat test: tmux is not installed (apt-get install tmux)");

let dist: BuiltDist;
beforeAll(async () => {
  if (!skip) dist = await builtDist();
}, BUILD_HOOK_MS);

const f = chatFixture();

describe.skipIf(skip)("compiled binary: plain `reasonix` opens the chat", () => {
  test("markdown answer, approval writes the file, session listed by the binary", async () => {
    await f.setup([
      { text: "## Plan\n\n- **write** the file\n- report back\n" },
      { toolCalls: [{ name: "write_file", arguments: { path: "bin.txt", content: "from the binary\n" } }] },
      { text: "Done: bin.txt written." },
    ]);
    const { ce } = f;
    const p = f.chat([], { bin: [dist.binary] });
    await p.waitFor("mode ask");
    p.send("plan it");
    let s = await p.waitFor("report back");
    expect(s).toContain("Plan");
    expect(s).not.toContain("## Plan");
    p.send("write it");
    await p.waitFor("Allow write_file");
    await answer(p, 1);
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
