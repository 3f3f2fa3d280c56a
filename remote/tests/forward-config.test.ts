// `remote forward add|rm|ls` edit [[remote.hosts.forwards]] of one host in the
// user config: spec forms, warnings, duplicates, and comment preservation.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseForwardSpec } from "../forwards/spec.ts";
import { makeCliEnv, type CliEnv } from "./ssh-cli-helpers.ts";

describe("forward spec parsing", () => {
  test("the three spec forms and IPv6 brackets", () => {
    expect(parseForwardSpec("local", "8080")).toEqual({ type: "local", bind: { host: "127.0.0.1", port: 8080 }, target: { host: "127.0.0.1", port: 8080 } });
    expect(parseForwardSpec("remote", "8080:db:5432")).toEqual({ type: "remote", bind: { host: "127.0.0.1", port: 8080 }, target: { host: "db", port: 5432 } });
    expect(parseForwardSpec("local", "0.0.0.0:80:web:8000")).toEqual({ type: "local", bind: { host: "0.0.0.0", port: 80 }, target: { host: "web", port: 8000 } });
    expect(parseForwardSpec("local", "[::1]:9000:[::1]:9001").bind).toEqual({ host: "::1", port: 9000 });
    for (const bad of ["", "abc", "0", "70000", "1:2", "a:1:b:2:c"]) expect(() => parseForwardSpec("local", bad)).toThrow();
  });
});

describe("remote forward add/rm/ls", () => {
  let cli: CliEnv;
  let cfg: string;
  const original = [
    "# my config",
    'default_model = "x" # keep me',
    "",
    "[[remote.hosts]]",
    'name = "a"',
    'host = "127.0.0.1"',
    "# a comment inside a's block",
    "",
    "[[remote.hosts]]",
    'name = "b"',
    'host = "10.0.0.1"',
    "",
    "[agent]",
    "max_steps = 7",
    "",
  ].join("\n");

  beforeEach(() => {
    cli = makeCliEnv("rx-fwd-cfg-");
    cfg = join(cli.rxHome, "config.toml");
    require("node:fs").mkdirSync(cli.rxHome, { recursive: true });
    writeFileSync(cfg, original, { mode: 0o600 });
  });
  afterEach(() => cli.cleanup());

  test("add, list, remove keep every other line of the file", () => {
    let r = cli.run(["remote", "forward", "add", "a", "-L", "5432"]);
    expect(r.code).toBe(0);
    r = cli.run(["remote", "forward", "add", "a", "-R", "8080:localhost:3000"]);
    expect(r.code).toBe(0);
    r = cli.run(["remote", "forward", "ls", "a", "--json"]);
    expect(JSON.parse(r.stdout)).toEqual([
      { type: "local", bind: "127.0.0.1:5432", target: "127.0.0.1:5432" },
      { type: "remote", bind: "127.0.0.1:8080", target: "localhost:3000" },
    ]);
    expect(cli.run(["remote", "forward", "ls", "b", "--json"]).stdout.trim()).toBe("[]");
    const text = readFileSync(cfg, "utf8");
    expect(text).toContain("# a comment inside a's block");
    expect(text).toContain('default_model = "x" # keep me');
    // The forwards went into a's block, before b's.
    expect(text.indexOf("[[remote.hosts.forwards]]")).toBeLessThan(text.indexOf('name = "b"'));

    expect(cli.run(["remote", "forward", "ls", "a"]).stdout).toBe("-L 127.0.0.1:5432 -> 127.0.0.1:5432\n-R 127.0.0.1:8080 -> localhost:3000\n");
    r = cli.run(["remote", "forward", "rm", "a", "5432"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("removed -L 127.0.0.1:5432");
    r = cli.run(["remote", "forward", "rm", "a", "127.0.0.1:8080"]);
    expect(r.code).toBe(0);
    expect(readFileSync(cfg, "utf8")).toBe(original);
  });

  test("duplicates, unknown binds, bad specs and exposed binds", () => {
    expect(cli.run(["remote", "forward", "add", "a", "-L", "5432"]).code).toBe(0);
    const dup = cli.run(["remote", "forward", "add", "a", "-L", "127.0.0.1:5432:db:5432"]);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain("already has a local forward bound to 127.0.0.1:5432");
    const bad = cli.run(["remote", "forward", "add", "a", "-L", "99999"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("invalid port");
    expect(cli.run(["remote", "forward", "add", "a"]).code).toBe(2);
    const wide = cli.run(["remote", "forward", "add", "a", "-L", "0.0.0.0:9000:localhost:9000"]);
    expect(wide.code).toBe(0);
    expect(wide.stderr).toContain("warning:");
    expect(wide.stderr).toContain("reachable from other machines");
    const missing = cli.run(["remote", "forward", "rm", "a", "7777"]);
    expect(missing.code).toBe(2);
    expect(cli.run(["remote", "forward", "ls", "nope"]).code).toBe(1);
  });
});
