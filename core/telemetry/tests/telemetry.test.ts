// The usage-counter allow-list and the collection decision:
// a field or bucket outside the schema fails validation, and
// CI / DO_NOT_TRACK / REASONIX_TELEMETRY=0 / dev builds / no saved choice
// always mean nothing is collected.
import { describe, expect, test } from "bun:test";
import { telemetryDecision, type TelemetryInputs } from "../mode.ts";
import { validatePayload } from "../schema.ts";

const good = {
  schema: 1,
  install_id: "0123456789abcdef0123456789abcdef",
  version: "0.4.2",
  os: "linux",
  arch: "x64",
  surface: "chat",
  ui_language: "en",
  day: "2026-12-02",
  counters: { turn_latency: { lt1s: 3, "1to5s": 10 }, finish_reason: { stop: 12 }, cache_hit: { "76to100": 9 } },
};

describe("validatePayload", () => {
  test("a payload inside the allow-list passes", () => {
    expect(validatePayload(good)).toEqual([]);
  });
  const bad: [string, unknown, string][] = [
    ["an extra top-level field", { ...good, cwd: "/home/alice/project" }, "cwd: not an allowed field"],
    ["a model name", { ...good, model: "gpt-x" }, "model: not an allowed field"],
    ["a free-text surface", { ...good, surface: "chat /home/alice" }, "surface: missing or not an allowed value"],
    ["an install id that is not 128-bit hex", { ...good, install_id: "alice@example.com" }, "install_id: missing or not an allowed value"],
    ["an unknown counter (tool names)", { ...good, counters: { tools: { bash: 3 } } }, "counters.tools: not an allowed counter"],
    ["an unknown bucket", { ...good, counters: { finish_reason: { "rm -rf /": 1 } } }, "counters.finish_reason.rm -rf /: not an allowed bucket"],
    ["an exact cost as a count", { ...good, counters: { cache_hit: { "0": 0.1234 } } }, "counters.cache_hit.0: not a count in 0..100000"],
    ["a missing field", { ...good, day: undefined }, "day: missing or not an allowed value"],
  ];
  for (const [what, payload, error] of bad) {
    test(`refuses ${what}`, () => {
      expect(validatePayload(payload)).toContain(error);
    });
  }
});

describe("telemetryDecision", () => {
  const base: TelemetryInputs = { setting: "auto", choice: "yes", env: {}, devBuild: false, surface: "chat", interactive: true };
  test("auto on an interactive session with a saved choice collects", () => {
    expect(telemetryDecision(base)).toEqual({ collect: true, reason: "enabled", ask: false });
  });
  const off: [string, Partial<TelemetryInputs>][] = [
    ["CI", { env: { CI: "true" } }],
    ["DO_NOT_TRACK=1", { env: { DO_NOT_TRACK: "1" } }],
    ["REASONIX_TELEMETRY=0", { env: { REASONIX_TELEMETRY: "0" } }],
    ["a development build", { devBuild: true }],
    ["mode off", { setting: "off" }],
    ["no saved choice", { choice: undefined }],
    ["a declined choice", { choice: "no" }],
    ["auto and headless run", { interactive: false, surface: "run" }],
    ...(["serve", "acp", "mcp-serve", "remote"] as const).map((surface): [string, Partial<TelemetryInputs>] => [`auto and ${surface}`, { interactive: false, surface }]),
  ];
  for (const [what, over] of off) {
    test(`never collects with ${what}`, () => {
      expect(telemetryDecision({ ...base, ...over }).collect).toBe(false);
    });
  }
  test("on adds every surface no person answers at a terminal: run, serve, acp, mcp serve, remote", () => {
    for (const surface of ["run", "serve", "acp", "mcp-serve", "remote"]) {
      expect(telemetryDecision({ ...base, setting: "on", interactive: false, surface }).collect).toBe(true);
    }
  });
});
