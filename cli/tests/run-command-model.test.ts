// `model:` front matter: `reasonix run "/cmd args"` runs that one turn on the
// named provider entry (two scripted servers: which one got the request);
// an unknown name fails naming the file and field; a project command may
// pick a model only in a trusted workspace. `reasonix run --resume ID --model
// NAME` (and `-c --model`) goes on on that entry, recorded for later resumes.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { turnModelFor } from "../../core/commands/turn-model.ts";
import type { CommandEntry } from "../../core/commands/types.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { put } from "../../core/commands/tests/helpers.ts";

setDefaultTimeout(120_000); // several real CLI runs per test

let main: ScriptedServer;
let other: ScriptedServer;
let ce: CliEnv;
afterEach(async () => {
  await main?.close();
  await other?.close();
  ce?.cleanup();
});

async function setup(mainSteps: Parameters<typeof startScriptedOpenAI>[0], otherSteps: Parameters<typeof startScriptedOpenAI>[0]) {
  main = await startScriptedOpenAI(mainSteps);
  other = await startScriptedOpenAI(otherSteps);
  ce = makeCliEnv(main.url, { extraToml: ["[[providers]]", 'name = "other"', 'kind = "openai"', `base_url = "${other.url}"`, 'model = "other-model"', 'api_key_env = "SCRIPTED_KEY"'].join("\n") });
}

test("a user command's model runs its turn on that entry; the next turn is back on the default", async () => {
  await setup([{ text: "plain answer" }], [{ text: "fast answer" }, { text: "skill answer" }]);
  put(join(ce.home, "commands/fast.md"), "---\ndescription: quick look\nmodel: other\n---\nQuick look at $ARGUMENTS\n");
  put(join(ce.home, "skills/brief/SKILL.md"), "---\nname: brief\ndescription: a brief answer\nmodel: other\n---\nAnswer briefly.\n");
  let r = await runCli(ce, ["run", "/fast the parser"]);
  expect(r.stderr).not.toContain("error");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("fast answer");
  expect(main.chatRequests()).toHaveLength(0);
  expect(other.chatRequests()).toHaveLength(1);
  expect(other.chatRequests()[0]!.body.model).toBe("other-model");
  expect(other.chatRequests()[0]!.body.messages.at(-1).content).toBe("Quick look at the parser\n");
  // The same session, next turn: the session's own model again.
  r = await runCli(ce, ["run", "-c", "and now plainly"]);
  expect(r.code).toBe(0);
  expect(main.chatRequests()).toHaveLength(1);
  expect(main.chatRequests()[0]!.body.model).toBe("scripted-model");
  expect(JSON.stringify(main.chatRequests()[0]!.body.messages)).toContain("fast answer");
  // A skill's model works the same way.
  r = await runCli(ce, ["run", "/brief what is this"]);
  expect(r.code).toBe(0);
  expect(other.chatRequests()).toHaveLength(2);
  expect(other.chatRequests()[1]!.body.messages.at(-1).content).toContain("Answer briefly.");
});

test("an unknown model name fails the run naming the file and the field; nothing is sent", async () => {
  await setup([], []);
  const file = join(ce.home, "commands/bad.md");
  put(file, "---\nmodel: nope\n---\nDo $1\n");
  const r = await runCli(ce, ["run", "/bad it"]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`${file}: model: unknown model "nope" (configured provider entries: scripted, other)`);
  expect(main.chatRequests()).toHaveLength(0);
  expect(other.chatRequests()).toHaveLength(0);
});

test("a project command's model applies once the workspace trusts it; untrusted, the command does not run at all", async () => {
  await setup([], [{ text: "project answer" }]);
  put(join(ce.workspace, ".reasonix/commands/deep.md"), "---\nmodel: other\n---\nThink about $ARGUMENTS\n");
  const denied = await runCli(ce, ["run", "/deep caching"]);
  expect(denied.code).toBe(1);
  expect(denied.stderr).toContain("not loaded: workspace not trusted (reasonix trust)");
  expect(main.chatRequests().length + other.chatRequests().length).toBe(0);
  expect((await runCli(ce, ["trust", "--yes"])).code).toBe(0);
  const r = await runCli(ce, ["run", "/deep caching"]);
  expect(r.code).toBe(0);
  expect(other.chatRequests()).toHaveLength(1);
  expect(main.chatRequests()).toHaveLength(0);
});

test("--resume ID --model NAME continues the conversation on that entry, and a later -c stays on it", async () => {
  await setup([{ text: "first answer" }], [{ text: "second answer" }, { text: "third answer" }]);
  const first = await runCli(ce, ["run", "--output-format", "json", "first question"]);
  expect(first.code).toBe(0);
  const id = JSON.parse(first.stdout).session_id as string;
  expect(main.chatRequests()).toHaveLength(1);

  const r = await runCli(ce, ["run", "--resume", id, "--model", "other", "--output-format", "json", "second question"]);
  expect(r.stderr).not.toContain("ignored");
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ session_id: id, result: "second answer" });
  expect(main.chatRequests()).toHaveLength(1);
  expect(other.chatRequests()).toHaveLength(1);
  const body = other.chatRequests()[0]!.body;
  expect(body.model).toBe("other-model");
  expect(JSON.stringify(body.messages)).toContain("first answer");
  expect(body.messages.at(-1).content).toBe("second question");

  // Recorded in the session: continuing without --model stays on the new entry.
  const third = await runCli(ce, ["run", "-c", "third question"]);
  expect(third.code).toBe(0);
  expect(other.chatRequests()).toHaveLength(2);
  expect(main.chatRequests()).toHaveLength(1);
});

test("--resume ID --model with an unknown name fails naming it; nothing is sent", async () => {
  await setup([{ text: "first answer" }], []);
  const first = await runCli(ce, ["run", "--output-format", "json", "first question"]);
  const id = JSON.parse(first.stdout).session_id as string;
  const r = await runCli(ce, ["run", "--resume", id, "--model", "nope", "again"]);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('"nope"');
  expect(main.chatRequests()).toHaveLength(1);
  expect(other.chatRequests()).toHaveLength(0);
});

test("turnModelFor: an untrusted project entry's model is ignored with a warning naming the file; user entries are checked against the configured names", () => {
  const entry = (scope: CommandEntry["scope"], model?: string): CommandEntry => ({ name: "x", description: "", kind: "command", scope, source: `/ws/.reasonix/commands/x.md`, path: `/ws/.reasonix/commands/x.md`, ...(model !== undefined ? { model } : {}) });
  const o = { models: ["scripted", "other"], trusted: () => false };
  expect(turnModelFor(entry("project", "other"), o)).toEqual({ warning: expect.stringContaining("/ws/.reasonix/commands/x.md: model \"other\" ignored: a project command may choose the model only in a trusted workspace") });
  expect(turnModelFor(entry("project", "other"), { ...o, trusted: () => true })).toEqual({ name: "other" });
  expect(turnModelFor(entry("user", "other"), o)).toEqual({ name: "other" });
  expect(turnModelFor(entry("user"), o)).toBeUndefined();
  expect(turnModelFor(undefined, o)).toBeUndefined();
  expect(() => turnModelFor(entry("user", ""), o)).toThrow('model: unknown model ""');
});
