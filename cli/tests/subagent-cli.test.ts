// `reasonix subagent …` through the real CLI against the scripted LLM.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { roleOf } from "../../core/agents/tests/helpers.ts";
import { startScriptedOpenAI, type RecordedRequest, type ReplyStep, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";

// Each step starts the CLI; on a loaded 2-core machine the whole flow can take longer than bun's 5 s default.
setDefaultTimeout(60_000);

let llm: ScriptedServer;
let ce: CliEnv;
const toolsSeen: string[][] = [];

// The child is told to write out.txt; whether it can depends on try (read-only) or run --auto.
const route = (req: RecordedRequest): ReplyStep => {
  if (roleOf(req) === "parent") return { text: "not expected" };
  toolsSeen.push((req.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name));
  const results = req.body.messages.filter((m: { role: string }) => m.role === "tool").length;
  if (results === 0) return { toolCalls: [{ name: "write_file", arguments: { path: "out.txt", content: "written by the child\n" } }] };
  return { text: `REPORT: ${req.body.messages.at(-1).content.slice(0, 80)}` };
};

beforeAll(async () => {
  llm = await startScriptedOpenAI(Array.from({ length: 100 }, () => route));
  ce = makeCliEnv(llm.url);
});
afterAll(async () => {
  ce.cleanup();
  await llm.close();
});

describe("reasonix subagent", () => {
  test("--help lists the subcommands; a missing subcommand or bad name is a usage error (2)", async () => {
    const help = await runCli(ce, ["subagent", "--help"]);
    expect(help.code).toBe(0);
    for (const s of ["list", "create", "edit", "try", "run", "delete"]) expect(help.stdout).toContain(`subagent ${s}`);
    expect((await runCli(ce, ["subagent"])).code).toBe(2);
    expect((await runCli(ce, ["subagent", "create", "bad name!", "--description", "x", "--prompt-file", "/dev/null", "--scope", "global"])).code).toBe(2);
  });

  test("create (global), list --json, edit, try (read-only), run, delete", async () => {
    const promptFile = join(ce.workspace, "prompt.md");
    writeFileSync(promptFile, "You write the requested file.\n");
    const created = await runCli(ce, ["subagent", "create", "scribe", "--description", "Writes files", "--prompt-file", promptFile, "--tools", "read_file,write_file", "--scope", "global"]);
    expect(created.code).toBe(0);
    const file = join(ce.home, "skills", "scribe", "SKILL.md");
    expect(readFileSync(file, "utf8")).toContain("runAs: subagent");
    expect((await runCli(ce, ["subagent", "create", "scribe", "--description", "again", "--prompt-file", promptFile, "--scope", "global"])).code).toBe(2);

    const listed = await runCli(ce, ["subagent", "list", "--json"]);
    expect(listed.code).toBe(0);
    const profiles = JSON.parse(listed.stdout).profiles;
    expect(profiles).toEqual([{ name: "scribe", description: "Writes files", scope: "global", path: file, tools: ["read_file", "write_file"] }]);

    expect((await runCli(ce, ["subagent", "edit", "scribe", "--description", "Writes one file"])).code).toBe(0);
    expect(readFileSync(file, "utf8")).toContain('description: "Writes one file"');
    expect(readFileSync(file, "utf8")).toContain("You write the requested file.");

    // try: always read-only — the child is told to write and cannot.
    const tried = await runCli(ce, ["subagent", "try", "scribe", "write out.txt", "--json"]);
    expect(tried.code).toBe(0);
    const t = JSON.parse(tried.stdout);
    expect(t.readOnly).toBe(true);
    expect(t.answer).toContain("unknown tool");
    expect(existsSync(join(ce.workspace, "out.txt"))).toBe(false);
    expect(toolsSeen.at(-1)).toEqual(["read_file"]);

    // run --auto: the same profile may write.
    const ran = await runCli(ce, ["subagent", "run", "scribe", "write out.txt", "--auto"]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("REPORT:");
    // Its steps go to stderr as they happen; stdout holds the answer only.
    expect(ran.stderr).toContain("↳ subagent scribe started");
    expect(ran.stderr).toContain("scribe › write_file: out.txt");
    expect(ran.stderr).toContain("↳ subagent scribe finished");
    expect(ran.stdout).not.toContain("subagent scribe started");
    expect(readFileSync(join(ce.workspace, "out.txt"), "utf8")).toBe("written by the child\n");
    expect(toolsSeen.at(-1)).toEqual(["read_file", "write_file"]);

    expect((await runCli(ce, ["subagent", "delete", "scribe"])).code).toBe(2);
    expect(existsSync(file)).toBe(true);
    expect((await runCli(ce, ["subagent", "delete", "scribe", "--yes"])).code).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect((await runCli(ce, ["subagent", "try", "scribe", "anything"])).code).toBe(2);
  });

  test("a project profile is repository content: listed but not run until the workspace is trusted", async () => {
    const promptFile = join(ce.workspace, "p.md");
    writeFileSync(promptFile, "Review.\n");
    expect((await runCli(ce, ["subagent", "create", "local", "--description", "Project reviewer", "--prompt-file", promptFile])).code).toBe(0);
    const listed = JSON.parse((await runCli(ce, ["subagent", "list", "--json"])).stdout).profiles;
    expect(listed[0].name).toBe("local");
    expect(listed[0].notLoaded).toContain("trust");
    const r = await runCli(ce, ["subagent", "try", "local", "look"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("trust");
    const trusted = await runCli(ce, ["subagent", "try", "local", "look", "--trust-project", "--json"]);
    expect(trusted.code).toBe(0);
    expect(JSON.parse(trusted.stdout).readOnly).toBe(true);
  });
});
