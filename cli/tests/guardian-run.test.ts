// `reasonix run --auto` end to end (the real CLI as a child process), with
// one scripted server as the executor and another as the Guardian.
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { startScriptedOpenAI, type ScriptStep, type ScriptedServer } from "../../core/testing/scripted-llm.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { bashCall, verdict } from "../../core/guardian/tests/helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(execSteps: ScriptStep[], guardSteps: ScriptStep[], guardianToml = "") {
  const exec = await startScriptedOpenAI(execSteps);
  const guard = await startScriptedOpenAI(guardSteps);
  const ce: CliEnv = makeCliEnv(exec.url);
  appendFileSync(
    join(ce.home, "config.toml"),
    ["[[providers]]", 'name = "guard"', 'kind = "openai"', `base_url = "${guard.url}"`, 'model = "guard-model"', 'api_key_env = "SCRIPTED_KEY"', "[guardian]", "enabled = true", 'model = "guard"', guardianToml, ""].join("\n"),
  );
  cleanups.push(() => exec.close(), () => guard.close(), () => ce.cleanup());
  return { exec, guard, ce };
}

describe("reasonix run --auto with the Guardian", () => {
  test("a refused call: the executor reads the reason and finishes; allowed and read-only calls run", async () => {
    const { exec, guard, ce } = await setup(
      [
        { toolCalls: [{ name: "bash", arguments: { command: "ls" } }] },
        bashCall("touch notes.txt"),
        bashCall("rm -rf precious"),
        { text: "Created notes.txt; the Guardian refused deleting precious, so I left it." },
      ],
      [verdict("low", "high", "creates a file the user asked for"), verdict("critical", "unknown", "deletes data the user did not mention")],
    );
    mkdirSync(join(ce.workspace, "precious"));
    const r = await runCli(ce, ["run", "--auto", "create notes.txt"]);
    expect(r.stderr).not.toContain("error:");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("the Guardian refused deleting precious");
    // Each review is one line on stderr.
    expect(r.stderr).toContain("reviewed by Guardian: allowed bash: touch notes.txt (low risk, authorization high): creates a file the user asked for");
    expect(r.stderr).toContain("reviewed by Guardian: denied bash: rm -rf precious (critical risk, authorization unknown): deletes data the user did not mention");
    expect(existsSync(join(ce.workspace, "notes.txt"))).toBe(true);
    expect(existsSync(join(ce.workspace, "precious"))).toBe(true);
    // `ls` skipped the Guardian: two reviews for three bash calls.
    expect(guard.chatRequests()).toHaveLength(2);
    const tool = exec.chatRequests()[3]!.body.messages.at(-1);
    expect(tool.role).toBe("tool");
    expect(tool.content).toMatch(/refused by the Guardian: .*rm -rf precious was judged critical risk .*deletes data the user did not mention/);
  });

  test("an unreachable Guardian fails closed: the call is denied, exit 3", async () => {
    const { guard, ce } = await setup([bashCall("touch x.txt"), { text: "unused" }], [{ kind: "error", status: 400, message: "no such model" }]);
    const r = await runCli(ce, ["run", "--auto", "make x"]);
    expect(r.code).toBe(3);
    expect(existsSync(join(ce.workspace, "x.txt"))).toBe(false);
    expect(r.stdout + r.stderr).toMatch(/Guardian \(guard\) could not review/);
    expect(guard.chatRequests()).toHaveLength(1);
  });

  test("a [guardian] model that names no provider entry is a config error naming the setting", async () => {
    const { ce } = await setup([{ text: "unused" }], []);
    const text = (await Bun.file(join(ce.home, "config.toml")).text()).replace('model = "guard"\n', 'model = "nope"\n');
    await Bun.write(join(ce.home, "config.toml"), text);
    const r = await runCli(ce, ["run", "--auto", "hi"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/guardian\.model = "nope" matches no \[\[providers\]\] entry \(known: scripted, guard\)/);
  });
});
