// `reasonix config telemetry [auto|on|off]` and the doctor line: the effective
// mode and why (text and --json), on/auto save a "yes", off saves a "no" and
// deletes the pending counters; doctor --json carries the same summary.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { addToQueue, saveChoice } from "../../core/telemetry/store.ts";
import { dayRecord } from "../../core/telemetry/session.ts";
import { makeCliEnv, runCli, type CliEnv } from "./run-helpers.ts";
import { telemetryEnv } from "./telemetry-helpers.ts";

const cleanups: (() => unknown)[] = [];
afterEach(() => { for (const c of cleanups.splice(0)) c(); });

function env(extra: Record<string, string> = {}): CliEnv {
  const ce = makeCliEnv("http://127.0.0.1:9/v1");
  cleanups.push(ce.cleanup);
  return { ...ce, env: telemetryEnv(ce, extra) };
}

const queue = (ce: CliEnv) => join(ce.home, "telemetry", "queue.json");

test("shows the effective mode and why; on saves yes, off saves no and deletes pending counters", async () => {
  const ce = env();
  let r = await runCli(ce, ["config", "telemetry", "--json"]);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ mode: "auto", choice: null, chat: { collect: false, reason: "off until the one-time choice is saved" }, run: { collect: false, reason: "auto: interactive terminal sessions only" }, pending: 0 });

  r = await runCli(ce, ["config", "telemetry", "on"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("telemetry: on · you said yes · chat: collected · run: collected");
  expect(r.stderr).toContain("Never prompts, answers");
  expect(readFileSync(join(ce.home, "config.toml"), "utf8")).toMatch(/\[telemetry\][^[]*mode = "on"/);
  const state = JSON.parse(readFileSync(join(ce.home, "telemetry", "choice.json"), "utf8"));
  expect(state.install_id).toMatch(/^[0-9a-f]{32}$/);

  addToQueue(ce.home, dayRecord(state.install_id, "run", { finish_reason: { stop: 2 } })!);
  expect(JSON.parse((await runCli(ce, ["config", "telemetry", "--json"])).stdout).pending).toBe(1);
  r = await runCli(ce, ["config", "telemetry", "off"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("telemetry: off · you said no · not collected (off: [telemetry] mode = off)");
  expect(existsSync(queue(ce))).toBe(false);
});

test("an unknown mode is a usage error (exit 2)", async () => {
  const r = await runCli(env(), ["config", "telemetry", "sometimes"]);
  expect(r.code).toBe(2);
});

test("DO_NOT_TRACK wins over a saved yes; doctor --json shows the same summary", async () => {
  const ce = env({ DO_NOT_TRACK: "1" });
  saveChoice(ce.home, "yes");
  const r = await runCli(ce, ["config", "telemetry"]);
  expect(r.stdout).toContain("not collected (off: DO_NOT_TRACK is set)");
  const d = await runCli(ce, ["doctor", "--json"]);
  expect(JSON.parse(d.stdout).telemetry).toMatchObject({ mode: "auto", choice: "yes", chat: { collect: false, reason: "off: DO_NOT_TRACK is set" } });
});

test("the old [telemetry] enabled key is read as the new mode with a note naming it; setting a mode drops the old key", async () => {
  const ce = env();
  const file = join(ce.home, "config.toml");
  writeFileSync(file, `[telemetry]\nenabled = false\n`);
  let r = await runCli(ce, ["config", "telemetry", "--json"]);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ mode: "off" });
  r = await runCli(ce, ["config", "get", "telemetry.mode"]);
  expect(r.stdout.trim()).toBe("off");
  expect(r.stderr).toContain('telemetry.enabled = false is read as telemetry.mode = "off"');
  expect(r.stderr).not.toContain("unknown key");

  writeFileSync(file, `[telemetry]\nenabled = true\n`);
  r = await runCli(ce, ["config", "get", "telemetry.mode"]);
  expect(r.stdout.trim()).toBe("on");
  expect(r.stderr).toContain("reasonix config telemetry auto|on|off");

  r = await runCli(ce, ["config", "telemetry", "auto"]);
  expect(r.code).toBe(0);
  expect(readFileSync(file, "utf8")).toBe(`[telemetry]\nmode = "auto"\n`);
  r = await runCli(ce, ["config", "get", "telemetry.mode"]);
  expect(r.stdout.trim()).toBe("auto");
  expect(r.stderr).not.toContain("telemetry.enabled");
});
