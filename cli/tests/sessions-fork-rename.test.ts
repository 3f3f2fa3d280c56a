// `reasonix sessions fork` and `sessions rename` through the real CLI, with
// sessions made by `reasonix run` against the scripted model.
import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

let llm: ScriptedServer | undefined;
let ce: CliEnv | undefined;
afterEach(async () => {
  await llm?.close();
  ce?.cleanup();
});

async function twoTurns(): Promise<string> {
  llm = await startScriptedOpenAI([{ text: "first answer" }, { text: "second answer" }, { text: "forked answer" }]);
  ce = makeCliEnv(llm.url);
  const one = await runCli(ce, ["run", "--output-format", "json", "first prompt"]);
  expect(one.code).toBe(0);
  const id = JSON.parse(one.stdout).session_id as string;
  expect((await runCli(ce, ["run", "--resume", id, "second prompt"])).code).toBe(0);
  return id;
}

test("sessions fork ID --turn N: a new session with the turns before N, linked to the original, which is unchanged; it runs on", async () => {
  const id = await twoTurns();
  const log = join(ce!.home, "sessions", `${id}.jsonl`);
  const before = readFileSync(log, "utf8");

  const text = await runCli(ce!, ["sessions", "fork", id, "--turn", "2"]);
  expect(text.code).toBe(0);
  const forkId = text.stdout.trim();
  expect(forkId).toMatch(/^\d{8}-\d{6}-[0-9a-f]+$/);
  expect(text.stderr).toContain(`forked ${id} before turn 2 into ${forkId} (1 turn); files on disk are unchanged`);
  expect(readFileSync(log, "utf8")).toBe(before);

  const list = JSON.parse((await runCli(ce!, ["sessions", "list", "--json"])).stdout) as Record<string, any>[];
  expect(list.find((s) => s.id === forkId)).toMatchObject({ title: "first prompt (fork)", turns: 1, forkedFrom: { id, turn: 2 } });
  expect((await runCli(ce!, ["sessions", "list"])).stdout).toContain(`forked from ${id} before turn 2`);

  // The fork continues with only the first turn behind it.
  expect((await runCli(ce!, ["run", "--resume", forkId, "another second"])).code).toBe(0);
  expect(llm!.chatRequests().at(-1)!.body.messages.slice(1).map((m: any) => m.content)).toEqual(["first prompt", "first answer", "another second"]);

  const json = JSON.parse((await runCli(ce!, ["sessions", "fork", id, "--json"])).stdout);
  expect(json).toMatchObject({ from: id, turns: 2, title: "first prompt (fork)" });
  expect(json.turn).toBeUndefined();
});

test("sessions fork refuses a missing turn, a bad --turn and an unknown session (exit 2)", async () => {
  const id = await twoTurns();
  const missing = await runCli(ce!, ["sessions", "fork", id, "--turn", "9"]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain(`turn 9 is not in session ${id} (turns: 1, 2)`);
  expect((await runCli(ce!, ["sessions", "fork", id, "--turn", "0"])).code).toBe(2);
  expect((await runCli(ce!, ["sessions", "fork", "no-such-session"])).code).toBe(2);
});

test("sessions rename: the title shows in list (text and --json); \"\" goes back; too long is refused", async () => {
  const id = await twoTurns();
  const r = await runCli(ce!, ["sessions", "rename", id, "Login\nbug", "--json"]);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual({ id, title: "Login bug" });
  expect((await runCli(ce!, ["sessions", "list"])).stdout).toContain("  Login bug  ");
  expect(JSON.parse((await runCli(ce!, ["sessions", "list", "--json"])).stdout)[0].title).toBe("Login bug");
  // The session still resumes and appends after the title record.
  expect((await runCli(ce!, ["run", "--resume", id, "third"])).code).toBe(0);
  expect(JSON.parse((await runCli(ce!, ["sessions", "list", "--json"])).stdout)[0]).toMatchObject({ title: "Login bug", turns: 3 });

  const back = await runCli(ce!, ["sessions", "rename", id, ""]);
  expect(back.code).toBe(0);
  expect(back.stderr).toContain('is now titled "first prompt"');
  const long = await runCli(ce!, ["sessions", "rename", id, "x".repeat(130)]);
  expect(long.code).toBe(2);
  expect(long.stderr).toContain("the title is 130 characters; at most 120");
  expect((await runCli(ce!, ["sessions", "rename", "no-such-session", "t"])).code).toBe(2);
});
