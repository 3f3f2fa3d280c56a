// A session created but never prompted (left on disk by a crash, or by a front
// end that never got its first prompt) is offered nowhere for resuming: not
// in the chat's /resume picker, not by `reasonix sessions list`, not as the
// "latest" of `-c`. `sessions list --all` still shows it, and resuming it by id works.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { createEngine } from "../../core/engine/index.ts";
import { providerConfig } from "../../core/engine/tests/helpers.ts";
import { slashCommands, type SlashContext } from "../chat/slash.ts";
import { plainPaint } from "../chat/cards.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

setDefaultTimeout(120_000); // several real CLI runs

let llm: ScriptedServer;
let ce: CliEnv;
afterEach(async () => {
  await llm?.close();
  ce?.cleanup();
});

test("an empty session on disk is not offered by /resume, sessions list or -c; --all and --resume ID still reach it", async () => {
  llm = await startScriptedOpenAI([{ text: "first answer" }, { text: "second answer" }, { text: "third answer" }]);
  ce = makeCliEnv(llm.url);
  const first = await runCli(ce, ["run", "--output-format", "json", "first question"]);
  expect(first.code).toBe(0);
  const prompted = JSON.parse(first.stdout).session_id as string;

  // The empty one, newer than the prompted one: made by a real engine, closed without a prompt.
  const engine = createEngine({ workspace: ce.workspace, home: ce.home, config: providerConfig(llm.url) });
  const empty = await engine.createSession();
  await empty.close();
  expect(Bun.file(join(ce.home, "sessions", `${empty.id}.jsonl`)).size).toBeGreaterThan(0);

  // The chat's /resume picker (from another, current session) offers only the prompted one.
  let offered: string[] | undefined;
  const ctx = {
    paint: plainPaint,
    print: () => {},
    st: { session: { id: "20990101-000000-zzzzzz", busy: false }, engine },
    pick: async (_title: string, items: { value: string }[]) => {
      offered = items.map((i) => i.value);
      return undefined;
    },
  } as unknown as SlashContext;
  await slashCommands.find((c) => c.name === "resume")!.run(ctx, "");
  expect(offered).toEqual([prompted]);
  expect((await engine.listSessions()).map((s) => s.id)).toEqual([prompted]);
  await engine.close();

  const list = await runCli(ce, ["sessions", "list", "--json"]);
  expect(list.code).toBe(0);
  expect(JSON.parse(list.stdout).map((s: { id: string }) => s.id)).toEqual([prompted]);
  const all = await runCli(ce, ["sessions", "list", "--json", "--all"]);
  expect(JSON.parse(all.stdout).map((s: { id: string }) => s.id).sort()).toEqual([prompted, empty.id].sort());

  // -c continues the latest conversation, not the newer empty log.
  const cont = await runCli(ce, ["run", "-c", "--output-format", "json", "second question"]);
  expect(cont.code).toBe(0);
  expect(JSON.parse(cont.stdout).session_id).toBe(prompted);

  // Asked for by id, the empty one opens (and, prompted, is listed from then on).
  const byId = await runCli(ce, ["run", "--resume", empty.id, "--output-format", "json", "third question"]);
  expect(byId.code).toBe(0);
  expect(JSON.parse(byId.stdout).session_id).toBe(empty.id);
  const after = await runCli(ce, ["sessions", "list", "--json"]);
  expect(JSON.parse(after.stdout).map((s: { id: string }) => s.id)).toEqual([empty.id, prompted]);
});
