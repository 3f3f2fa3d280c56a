// `reasonix remote add` refuses targets that can never connect when they are
// typed (exit 2, nothing stored), and warns when the local shell has expanded
// the `~` of --workspace. No sshd needed: nothing here connects.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkTarget, hostProblem, workspaceWarning } from "../hosts/check-target.ts";
import { makeCliEnv } from "./ssh-cli-helpers.ts";

const cli = makeCliEnv("rx-remote-add-");
afterAll(() => cli.cleanup());

test.each([
  ["@@::garbage:::99999", 'host "::garbage:::99999" is not a valid IPv6 address'],
  ["dev@[::1", 'unbalanced "[" or "]"'],
  ["dev@exa$mple.com", 'label "exa$mple" may only have letters'],
  ["dev@999.1.1.1", 'host "999.1.1.1" is not a valid IPv4 address'],
  ["dev@a..b", "an empty label"],
  ["d ev@host", 'user "d ev" is not a valid login name'],
  ["dev@host:0", "port must be 1-65535"],
  ["dev@host:99999", "port must be 1-65535"],
])("remote add %p → exit 2, nothing stored", (target, message) => {
  const r = cli.run(["remote", "add", "bad", target]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(message);
  expect(existsSync(join(cli.rxHome, "config.toml")) ? readFileSync(join(cli.rxHome, "config.toml"), "utf8") : "").not.toContain('name = "bad"');
});

test("good targets are stored: DNS names, IPv4, bracketed IPv6 with a port, a ProxyJump hop list", () => {
  for (const [name, target] of [["a", "dev@gpu-box.example.com"], ["b", "dev@203.0.113.7:2222"], ["c", "dev@[2001:db8::1]:22"], ["d", "box_1"]] as const) {
    const r = cli.run(["remote", "add", name, target]);
    expect(r.stderr).not.toContain("error");
    expect(r.code).toBe(0);
  }
  const badJump = cli.run(["remote", "add", "e", "dev@h1", "--jump", "ok.example.com,bad$hop"]);
  expect(badJump.code).toBe(2);
  expect(badJump.stderr).toContain('--jump hop "bad$hop"');
  expect(cli.run(["remote", "add", "f", "dev@h1", "--jump", "a,jump@[::1]:2200"]).code).toBe(0);
  const list = JSON.parse(cli.run(["remote", "list", "--json"]).stdout);
  expect(list.map((h: { name: string; host: string }) => `${h.name}=${h.host}`)).toEqual(["a=gpu-box.example.com", "b=203.0.113.7", "c=2001:db8::1", "d=box_1", "f=h1"]);
});

test("a --workspace under the local home (an unquoted ~ the shell expanded) warns with the quoted form", () => {
  const r = cli.run(["remote", "add", "ws", "dev@203.0.113.7", "--workspace", join(cli.home, "projects/app")]);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain(`--workspace ${join(cli.home, "projects/app")} is under your local home (${cli.home}): did you mean '~/projects/app'? quote the ~ so the remote home is used`);
  const quoted = cli.run(["remote", "add", "ws2", "dev@203.0.113.7", "--workspace", "~/projects/app"]);
  expect(quoted.code).toBe(0);
  expect(quoted.stderr).not.toContain("did you mean");
  expect(JSON.parse(cli.run(["remote", "list", "--json"]).stdout).find((h: { name: string }) => h.name === "ws2").workspace).toBe("~/projects/app");
});

test("host and workspace checks as functions", () => {
  expect(hostProblem("example.com.")).toBeNull();
  expect(hostProblem("::1")).toBeNull();
  expect(hostProblem("x".repeat(64))).toContain("at most 63");
  // A user that would read as an ssh option is refused too.
  expect(() => checkTarget({ user: "-oProxyCommand=x", host: "h" }, "-oProxyCommand=x@h")).toThrow('user "-oProxyCommand=x" is not a valid login name');
  expect(workspaceWarning("/home/me", "/home/me")).toContain("did you mean '~/'?");
  expect(workspaceWarning("/home/meadow/app", "/home/me")).toBeNull();
  expect(workspaceWarning("/srv/app", "/home/me")).toBeNull();
});

test("--port N is the same as HOST:PORT (issue 34 item 11); a conflicting pair or a bad port is refused", () => {
  expect(cli.run(["remote", "add", "pp", "dev@203.0.113.7", "--port", "2222"]).code).toBe(0);
  expect(cli.run(["remote", "add", "pq", "dev@[2001:db8::1]", "-p", "2200"]).code).toBe(0);
  expect(cli.run(["remote", "add", "pr", "dev@203.0.113.7:2222", "--port", "2222"]).code).toBe(0);
  const list = JSON.parse(cli.run(["remote", "list", "--json"]).stdout) as { name: string; port?: number }[];
  expect(Object.fromEntries(list.filter((h) => ["pp", "pq", "pr"].includes(h.name)).map((h) => [h.name, h.port]))).toEqual({ pp: 2222, pq: 2200, pr: 2222 });
  const conflict = cli.run(["remote", "add", "px", "dev@203.0.113.7:2222", "--port", "22"]);
  expect(conflict.code).toBe(2);
  expect(conflict.stderr).toContain("names port 2222 but --port says 22");
  for (const bad of ["0", "70000", "ssh"]) {
    const r = cli.run(["remote", "add", "py", "dev@203.0.113.7", "--port", bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("port must be 1-65535");
  }
  const after = JSON.parse(cli.run(["remote", "list", "--json"]).stdout) as { name: string }[];
  expect(after.some((h) => h.name === "px" || h.name === "py")).toBe(false);
});
