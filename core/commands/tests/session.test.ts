// Commands, skills and @references inside a real session against the
// scripted model: what reaches the provider, and that the cached prefix
// (system prompt, tool schemas, earlier messages) stays byte-identical.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { collect, engineFor, makeSandbox, type Sandbox } from "../../engine/tests/helpers.ts";
import { put } from "./helpers.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(steps: Parameters<typeof startScriptedOpenAI>[0]): Promise<{ sb: Sandbox; llm: ScriptedServer }> {
  const sb = makeSandbox();
  const llm = await startScriptedOpenAI(steps);
  cleanups.push(() => sb.cleanup(), () => llm.close());
  return { sb, llm };
}

test("a skill's body is absent from the first request and arrives through run_skill; the request prefix stays byte-identical", async () => {
  const { sb, llm } = await setup([{ toolCalls: [{ name: "run_skill", arguments: { name: "changelog", arguments: "v2" } }] }, { text: "done" }]);
  put(join(sb.home, "skills/changelog/SKILL.md"), "---\nname: changelog\ndescription: Write the changelog entry for a release\n---\nSECRET-BODY: list merged PRs, group by area.\n");
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => engine.close());
  const s = await engine.createSession();
  expect(await s.submit("prepare the release notes")).toBe("done");
  const [first, second] = llm.chatRequests().map((r) => r.body);
  const firstText = JSON.stringify(first);
  expect(firstText).not.toContain("SECRET-BODY");
  expect(firstText).toContain("- changelog: Write the changelog entry for a release");
  expect(JSON.stringify(first.messages[0])).not.toContain("changelog"); // not in the system prompt
  expect(JSON.stringify(first.tools)).not.toContain("changelog"); // nor in the tool schemas
  expect(first.tools.map((t: any) => t.function.name)).toContain("run_skill");
  expect(JSON.stringify(second.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
  expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
  const tool = second.messages.at(-1);
  expect(tool.role).toBe("tool");
  expect(tool.content).toContain("SECRET-BODY: list merged PRs");
  expect(tool.content).toContain("Arguments: v2");
});

test("/command args and /<skill> expand before the provider sees them; @file attaches the file; unknown /names and @names stay literal", async () => {
  const { sb, llm } = await setup([{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }]);
  put(join(sb.home, "commands/review.md"), "---\ndescription: review an area\nargument-hint: <area> [focus]\n---\nReview the $1 module, focusing on $2. All: $ARGUMENTS\n");
  put(join(sb.home, "skills/tidy/SKILL.md"), "---\nname: tidy\ndescription: tidy up\n---\nTIDY-BODY\n");
  put(join(sb.workspace, "src/auth.ts"), "export const login = () => true;\n");
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => engine.close());
  const s = await engine.createSession();
  const evs = collect(s);
  await s.submit('/review auth "token expiry"');
  await s.submit("/tidy src");
  await s.submit("look at @src/auth.ts and ask @bob");
  await s.submit("/etc/hosts is odd; /nosuch thing");
  const last = llm.chatRequests().map((r) => r.body.messages.at(-1).content);
  expect(last[0]).toBe('Review the auth module, focusing on token expiry. All: auth "token expiry"\n');
  expect(last[1]).toContain("TIDY-BODY");
  expect(last[1]).toContain("Arguments: src");
  expect(last[2]).toBe('look at @src/auth.ts and ask @bob\n\n<file path="src/auth.ts" lines="1-1">\n   1\texport const login = () => true;\n</file>');
  expect(last[3]).toBe("/etc/hosts is odd; /nosuch thing");
  // Front ends show what the user typed.
  expect(evs.filter((e) => e.type === "turn_start").map((e: any) => e.prompt)[0]).toBe('/review auth "token expiry"');
});

test("an untrusted project command ends the turn with an error naming the file, and nothing reaches the provider", async () => {
  const { sb, llm } = await setup([{ text: "never" }]);
  put(join(sb.workspace, ".reasonix/commands/ship.md"), "Ship it with --force\n");
  const engine = engineFor(sb, llm.url);
  cleanups.push(() => engine.close());
  const s = await engine.createSession();
  const evs = collect(s);
  expect(await s.submit("/ship now")).toBe("error");
  expect(llm.chatRequests()).toHaveLength(0);
  const end = evs.find((e) => e.type === "turn_end") as any;
  expect(end.error).toContain(`/ship (${join(sb.workspace, ".reasonix/commands/ship.md")}) not loaded: workspace not trusted (reasonix trust)`);
});

test("a command's allowed-tools stand in for the prompt during its turn only, never for a deny rule", async () => {
  const { sb, llm } = await setup([
    { toolCalls: [{ name: "write_file", arguments: { path: "notes/a.md", content: "A" } }] },
    { text: "wrote" },
    // A refused call ends a headless turn: no further step is asked for.
    { toolCalls: [{ name: "write_file", arguments: { path: "notes/b.md", content: "B" } }] },
    { toolCalls: [{ name: "write_file", arguments: { path: "secret/c.md", content: "C" } }] },
  ]);
  put(join(sb.home, "commands/note.md"), "---\nallowed-tools: [write_file, Edit(notes/**)]\n---\nWrite the note $1\n");
  put(join(sb.home, "commands/leak.md"), "---\nallowed-tools: write_file\n---\nWrite $1\n");
  const cfg = (await import("../../engine/tests/helpers.ts")).providerConfig(llm.url);
  (cfg.permissions as Record<string, unknown>).deny = ["Edit(secret/**)"];
  const engine = engineFor(sb, llm.url, { config: cfg, permissionMode: "ask", headless: true });
  cleanups.push(() => engine.close());
  const s = await engine.createSession();
  expect(await s.submit("/note a")).toBe("done");
  expect(await s.submit("now write b")).toBe("denied");
  expect(await s.submit("/leak c")).toBe("denied");
  const refusals = s.history().filter((e) => e.type === "tool_result").map((e: any) => e.output);
  expect(refusals[1]).toContain("needs approval in ask mode");
  expect(refusals[2]).toContain("is denied by the rule Edit(secret/**)");
  expect(llm.chatRequests()).toHaveLength(4);
  const { existsSync } = await import("node:fs");
  expect([existsSync(join(sb.workspace, "notes/a.md")), existsSync(join(sb.workspace, "notes/b.md")), existsSync(join(sb.workspace, "secret/c.md"))]).toEqual([true, false, false]);
});
