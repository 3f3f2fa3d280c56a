// `reasonix run "#note"`: appended to the project's instruction file, never
// sent to the model; a run cannot ask, so outside --auto it refuses with the fix.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

let llm: ScriptedServer;
let ce: CliEnv;
afterEach(async () => {
  await llm?.close();
  ce?.cleanup();
});

test("ask mode refuses naming --auto; -y appends to the existing CLAUDE.md; no turn runs; the next session reads the note", async () => {
  llm = await startScriptedOpenAI([{ text: "hello" }]);
  ce = makeCliEnv(llm.url);
  writeFileSync(join(ce.workspace, "CLAUDE.md"), "# Project\n");
  const refused = await runCli(ce, ["run", "#use pnpm, never npm"]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("a #note is appended to CLAUDE.md only after confirmation, and this run cannot ask");
  expect(refused.stderr).toContain("--auto (-y)");
  expect(readFileSync(join(ce.workspace, "CLAUDE.md"), "utf8")).toBe("# Project\n");

  const ok = await runCli(ce, ["run", "-y", "#use pnpm, never npm"]);
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain("noted in CLAUDE.md");
  expect(readFileSync(join(ce.workspace, "CLAUDE.md"), "utf8")).toBe("# Project\n- use pnpm, never npm\n");
  expect(existsSync(join(ce.workspace, "AGENTS.md"))).toBe(false);
  expect(llm.chatRequests()).toHaveLength(0);
  // No session was made for it.
  const list = await runCli(ce, ["sessions", "list", "--json"]);
  expect(JSON.parse(list.stdout)).toHaveLength(0);

  const json = await runCli(ce, ["run", "-y", "--output-format", "json", "#second note"]);
  expect(JSON.parse(json.stdout)).toEqual({ type: "note", path: join(ce.workspace, "CLAUDE.md"), created: false });

  const next = await runCli(ce, ["run", "hi"]);
  expect(next.code).toBe(0);
  expect(JSON.stringify(llm.chatRequests()[0]!.body.messages)).toContain("- use pnpm, never npm");
});
