import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../load.ts";
import { setConfigValue, setInText } from "../edit.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "rx-config-"));

describe("config resolution", () => {
  test("flag > project > user > default, with sources", () => {
    const home = tmp();
    const cwd = tmp();
    writeFileSync(join(home, "config.toml"), 'default_model = "user-model"\n[sandbox]\nnetwork = true\n[agent]\nmax_steps = 7\n');
    // An untrusted project may lower a limit (not raise it: see core/trust/tests).
    writeFileSync(join(cwd, "reasonix.toml"), '[agent]\nmax_steps = 5\n');
    const cfg = loadConfig({ home, cwd, flags: { default_model: "flag-model" } });
    expect(cfg.values.default_model).toBe("flag-model");
    expect(cfg.sources.get("default_model")).toBe("flag");
    expect((cfg.values.agent as any).max_steps).toBe(5);
    expect(cfg.sources.get("agent.max_steps")).toBe(join(cwd, "reasonix.toml"));
    expect((cfg.values.sandbox as any).network).toBe(true);
    expect(cfg.sources.get("sandbox.network")).toBe(join(home, "config.toml"));
    expect((cfg.values.agent as any).compact_ratio).toBe(0.8);
    expect(cfg.sources.get("agent.compact_ratio")).toBe("default");
  });

  test("user-only sections in a project file are ignored with a warning naming the file", () => {
    const home = tmp();
    const cwd = tmp();
    writeFileSync(join(cwd, "reasonix.toml"), '[[remote.hosts]]\nname = "evil"\nhost = "attacker"\n[serve]\naddr = "0.0.0.0:1"\n');
    const cfg = loadConfig({ home, cwd });
    expect((cfg.values.remote as any).hosts).toBeUndefined();
    expect((cfg.values.serve as any).addr).toBe("127.0.0.1:8787");
    const file = join(cwd, "reasonix.toml");
    expect(cfg.warnings).toContain(`${file}:1: remote ignored: only the user config (${join(home, "config.toml")}) may set it`);
    expect(cfg.warnings).toContain(`${file}:4: serve ignored: only the user config (${join(home, "config.toml")}) may set it`);
  });

  test("syntax error names file:line:col", () => {
    const home = tmp();
    writeFileSync(join(home, "config.toml"), 'a = 1\n[sandbox\nnetwork = true\n');
    expect(() => loadConfig({ home, cwd: tmp() })).toThrow(new RegExp(`${join(home, "config.toml")}:2:\\d+: TOML syntax error`));
  });

  test("wrong type names the dotted key and expected type; unknown keys only warn", () => {
    const home = tmp();
    writeFileSync(join(home, "config.toml"), '[sandbox]\nnetwork = "yes"\n');
    expect(() => loadConfig({ home, cwd: tmp() })).toThrow(/sandbox\.network: expected a boolean, got string/);
    writeFileSync(join(home, "config.toml"), '[sandbox]\nnetwrk = true\n');
    const cfg = loadConfig({ home, cwd: tmp() });
    expect(cfg.warnings.join("\n")).toContain("sandbox.netwrk: unknown key");
  });
});

describe("config set", () => {
  test("keeps comments and unrelated tables, writes atomically", () => {
    const home = tmp();
    const file = join(home, "config.toml");
    const original = '# my settings\ndefault_model = "a" # keep me\n\n[[providers]]\nname = "a"\nkind = "openai"\n\n[sandbox]\n# network is off\nnetwork = false\n\n[custom_stuff]\nx = 1\n';
    writeFileSync(file, original, { mode: 0o600 });
    setConfigValue(file, "sandbox.network", "true");
    setConfigValue(file, "default_model", "b");
    setConfigValue(file, "agent.max_steps", "12");
    const text = readFileSync(file, "utf8");
    expect(text).toContain("# my settings");
    expect(text).toContain('default_model = "b" # keep me');
    expect(text).toContain("# network is off\nnetwork = true");
    expect(text).toContain("[custom_stuff]\nx = 1");
    expect(text).toContain('[[providers]]\nname = "a"');
    expect(text).toContain("[agent]\nmax_steps = 12");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const cfg = loadConfig({ home, cwd: tmp() });
    expect((cfg.values.agent as any).max_steps).toBe(12);
  });

  test("bad value: clear error and the file is untouched", () => {
    const home = tmp();
    const file = join(home, "config.toml");
    writeFileSync(file, "[sandbox]\nnetwork = false\n");
    expect(() => setConfigValue(file, "sandbox.network", "maybe")).toThrow(/sandbox\.network: expected true or false/);
    expect(() => setConfigValue(file, "agent.max_steps", "1.5")).toThrow(/expected an integer/);
    expect(() => setConfigValue(file, "no.such.key", "1")).toThrow(/unknown config key/);
    expect(readFileSync(file, "utf8")).toBe("[sandbox]\nnetwork = false\n");
  });

  test("setInText adds a missing table at the end", () => {
    expect(setInText("", "sandbox.network", true)).toBe("[sandbox]\nnetwork = true\n");
    expect(setInText("x = 1\n", "y", "s")).toBe('x = 1\ny = "s"\n');
  });
});
