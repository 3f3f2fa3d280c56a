// What a project's reasonix.toml may do to the [guardian] section: turn it on,
// never off, never pick its model (a provider choice is the user's alone).
import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config/load.ts";
import { trustWorkspace } from "../../trust/report.ts";
import { guardianSettings } from "../setup.ts";

const tmp = (p: string) => realpathSync(mkdtempSync(join(tmpdir(), p)));
const PROVIDERS = '[[providers]]\nname = "main"\nkind = "openai"\nmodel = "m"\n[[providers]]\nname = "cheap"\nkind = "openai"\nmodel = "c"\n';

function fixture(user: string, project: string) {
  const home = tmp("rx-guardian-trust-home-");
  const ws = tmp("rx-guardian-trust-ws-");
  writeFileSync(join(home, "config.toml"), PROVIDERS + user);
  writeFileSync(join(ws, "reasonix.toml"), project);
  return { home, ws, load: () => loadConfig({ home, cwd: ws }) };
}

describe("[guardian] in a project file", () => {
  test("an untrusted project may turn the Guardian on, and lower its timeout", () => {
    const f = fixture("", "[guardian]\nenabled = true\ntimeout_seconds = 20\n");
    const c = f.load();
    expect(c.trust.trusted).toBe(false);
    expect(c.trust.ignored).toEqual([]);
    expect(guardianSettings(c.values)).toEqual({ enabled: true, timeoutSeconds: 20 });
  });

  test("it may not turn it off, even once the workspace is trusted", () => {
    const f = fixture('[guardian]\nenabled = true\nmodel = "cheap"\n', "[guardian]\nenabled = false\n");
    let c = f.load();
    expect(guardianSettings(c.values).enabled).toBe(true);
    expect(c.trust.ignored.map((i) => [i.key, i.trustable, i.line])).toEqual([["guardian.enabled", false, 2]]);
    expect(c.warnings.join("\n")).toMatch(/reasonix\.toml:2: guardian\.enabled ignored: a project may turn the Guardian on, never off/);
    trustWorkspace(f.ws, f.home);
    c = f.load();
    expect(c.trust.trusted).toBe(true);
    expect(guardianSettings(c.values).enabled).toBe(true);
  });

  test("it may not choose the Guardian's model (trusted or not); the user's choice stands", () => {
    const f = fixture('[guardian]\nmodel = "cheap"\n', '[guardian]\nenabled = true\nmodel = "main"\n');
    let c = f.load();
    expect(guardianSettings(c.values)).toEqual({ enabled: true, model: "cheap", timeoutSeconds: 60 });
    expect(c.trust.ignored.map((i) => i.key)).toEqual(["guardian.model"]);
    expect(c.trust.ignored[0]!.reason).toMatch(/only the user config .* may set it/);
    trustWorkspace(f.ws, f.home);
    c = f.load();
    expect(guardianSettings(c.values).model).toBe("cheap");
  });

  test("an untrusted project may not raise the timeout (a trusted one may)", () => {
    const f = fixture("[guardian]\ntimeout_seconds = 30\n", "[guardian]\ntimeout_seconds = 600\n");
    let c = f.load();
    expect(guardianSettings(c.values).timeoutSeconds).toBe(30);
    expect(c.trust.ignored.map((i) => [i.key, i.trustable])).toEqual([["guardian.timeout_seconds", true]]);
    trustWorkspace(f.ws, f.home);
    c = f.load();
    expect(guardianSettings(c.values).timeoutSeconds).toBe(600);
  });

  test("[agent] planner_model is the user's alone too", () => {
    const f = fixture('[agent]\nplanner_model = "cheap"\n', '[agent]\nplanner_model = "main"\n');
    const c = f.load();
    expect((c.values.agent as Record<string, unknown>).planner_model).toBe("cheap");
    expect(c.trust.ignored.map((i) => [i.key, i.trustable])).toEqual([["agent.planner_model", false]]);
  });
});
