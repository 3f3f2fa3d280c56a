// Issue 27 item 5 in ACP: the "always allow" answers an editor is offered say
// where the rule is saved — the user's config by default, the project's file
// only when that option is the one picked — and save it exactly there.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { acpTestRig } from "./helpers.ts";

const { setup } = acpTestRig();

const write = (path: string) => ({ toolCalls: [{ name: "write_file", arguments: { path, content: `${path}\n` } }] });
const read = (p: string) => (existsSync(p) ? readFileSync(p, "utf8") : "");

test("the always options name the file each writes: your config first, the project's file as its own choice", async () => {
  const { conn, editor, env } = await setup([write("a.txt"), { text: "done" }]);
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "write a.txt" }] });
  const opts = editor.permissionRequests[0]!.options;
  // An editor that picks an option by kind ("the first allow_always", as acpx's policy does) gets
  // the session-only one: nothing is saved to a file unless a saving option is picked by name.
  expect(opts.map((o) => [o.optionId, o.kind])).toEqual([
    ["allow_once", "allow_once"],
    ["allow_session", "allow_always"],
    ["allow_always", "allow_always"],
    ["allow_always_project", "allow_always"],
    ["reject", "reject_once"],
  ]);
  const byId = Object.fromEntries(opts.map((o) => [o.optionId, o.name]));
  expect(byId.allow_session).toContain("this session");
  expect(byId.allow_session).not.toMatch(/save|config|toml/);
  expect(byId.allow_always).toContain(join(env.home, "config.toml"));
  expect(byId.allow_always).toContain("your config");
  expect(byId.allow_always_project).toContain(join(env.workspace, "reasonix.toml"));
  expect(byId.allow_always_project).toContain("this project");
});

test("'always' saves the rule in the user's config and never in the project; the next call is not asked", async () => {
  const { conn, editor, env } = await setup([write("b.txt"), { text: "one" }, write("b.txt"), { text: "two" }]);
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  const userBefore = read(join(env.home, "config.toml"));
  editor.answer = "allow_always";
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "write b.txt" }] });
  expect(read(join(env.workspace, "b.txt"))).toBe("b.txt\n");
  const after = read(join(env.home, "config.toml"));
  expect(after.startsWith(userBefore)).toBe(true);
  // The user-wide file holds the rule anchored to this workspace, exactly as the option said.
  const said = editor.permissionRequests[0]!.options.find((o) => o.optionId === "allow_always")!.name;
  expect(said).toContain(`Edit(${join(env.workspace, "b.txt")})`);
  expect(after.slice(userBefore.length)).toContain(`"Edit(${join(env.workspace, "b.txt")})"`);
  expect(existsSync(join(env.workspace, "reasonix.toml"))).toBe(false);
  editor.answer = "reject";
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "again" }] });
  expect(editor.permissionRequests).toHaveLength(1);
});

test("'always in this project' saves the rule in the project's reasonix.toml and leaves the user's config as it was", async () => {
  const { conn, editor, env } = await setup([write("c.txt"), { text: "one" }]);
  const s = await conn.newSession({ cwd: env.workspace, mcpServers: [] });
  const userBefore = read(join(env.home, "config.toml"));
  editor.answer = "allow_always_project";
  await conn.prompt({ sessionId: s.sessionId, prompt: [{ type: "text", text: "write c.txt" }] });
  expect(read(join(env.workspace, "c.txt"))).toBe("c.txt\n");
  expect(read(join(env.workspace, "reasonix.toml"))).toContain("Edit(c.txt)");
  // The user's config gains no rule (only the trust record of the project file the user just edited).
  const after = read(join(env.home, "config.toml"));
  expect(after.startsWith(userBefore)).toBe(true);
  expect(after.slice(userBefore.length)).not.toContain("Edit(");
});
