// Limits an untrusted reasonix.toml may only lower, judged the way the code
// that enforces each one reads it: a value kept from the project must never
// mean more (or no limit) than the user's. 0 is "no limit" for some of them
// and negative values fall back to the default for others, so a plain
// `theirs <= mine` let `bash_timeout_seconds = 0` (no timeout) through.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentLimits } from "../../agents/config.ts";
import { loadConfig } from "../../config/load.ts";
import { goalSettings } from "../../goal/config.ts";
import { guardianSettings } from "../../guardian/setup.ts";
import { timeoutFor } from "../../tools/builtin/bash.ts";
import { bashOutputLimit, maxOutputTokensOf, maxStepsOf } from "../../config/limits.ts";

type Values = Record<string, unknown>;
const inf = (n: number) => (n === 0 ? Infinity : n);

/** Each limit, and what the enforcing code makes of the merged config (Infinity = no limit). */
const limits: Record<string, (v: Values) => number> = {
  "tools.bash_timeout_seconds": (v) => inf(timeoutFor({} as any, { config: v } as any)),
  "tools.bash_output_limit": (v) => bashOutputLimit(v),
  "agent.max_steps": (v) => maxStepsOf(v),
  "agent.max_output_tokens": (v) => inf(maxOutputTokensOf(v)),
  "agent.goal_max_turns": (v) => inf(goalSettings(v).maxTurns),
  "agent.goal_token_budget": (v) => inf(goalSettings(v).tokenBudget),
  "agent.goal_evaluator_timeout_seconds": (v) => goalSettings(v).evaluatorTimeoutMs,
  "agent.max_subagent_depth": (v) => agentLimits(v).maxDepth,
  "agent.max_subagent_concurrency": (v) => agentLimits(v).maxConcurrency,
  "agent.max_parallel_writers": (v) => agentLimits(v).maxParallelWriters,
  "guardian.timeout_seconds": (v) => guardianSettings(v).timeoutSeconds,
};

const tmp = (p: string) => realpathSync(mkdtempSync(join(tmpdir(), p)));
const home = tmp("rx-limits-home-");
const ws = tmp("rx-limits-ws-");
const toml = (key: string, value: number) => {
  const [section, name] = key.split(".");
  return `[${section}]\n${name} = ${value}\n`;
};
function load(key: string, user: number | undefined, project: number | undefined): Values {
  writeFileSync(join(home, "config.toml"), user === undefined ? "" : toml(key, user));
  writeFileSync(join(ws, "reasonix.toml"), project === undefined ? "" : toml(key, project));
  return loadConfig({ home, cwd: ws }).values;
}

describe("limits an untrusted project may only lower", () => {
  for (const [key, effective] of Object.entries(limits)) {
    test(`${key}: a kept project value never means more than the user's`, () => {
      const loosened: string[] = [];
      for (const user of [undefined, 0, 1, 10]) {
        const mine = effective(load(key, user, undefined));
        for (const project of [-1, 0, 1, 5, 10, 100_000]) {
          const theirs = effective(load(key, user, project));
          if (theirs > mine) loosened.push(`user ${user ?? "unset"} (${mine}) + project ${project} → ${theirs}`);
        }
      }
      expect(loosened).toEqual([]);
    });
  }

  test("bash_timeout_seconds = 0 (no timeout) is refused and reported; a lower timeout is kept", () => {
    writeFileSync(join(home, "config.toml"), "");
    writeFileSync(join(ws, "reasonix.toml"), "[tools]\nbash_timeout_seconds = 0\n");
    const c = loadConfig({ home, cwd: ws });
    expect(c.trust.ignored.map((i) => i.key)).toEqual(["tools.bash_timeout_seconds"]);
    expect(timeoutFor({} as any, { config: c.values } as any)).toBe(120);
    writeFileSync(join(ws, "reasonix.toml"), "[tools]\nbash_timeout_seconds = 30\n");
    expect(timeoutFor({} as any, { config: loadConfig({ home, cwd: ws }).values } as any)).toBe(30);
  });
});
