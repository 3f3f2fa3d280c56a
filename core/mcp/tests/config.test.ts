// Declarations: .mcp.json read as-is, ${VAR} expansion at launch, precedence
// project reasonix.toml > .mcp.json > user, and trust.
import { expect, test } from "bun:test";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../config/load.ts";
import { expandSpec, expandVars, NOT_TRUSTED, parseMcpJson, resolveServers, specFrom } from "../config.ts";
import { toolName } from "../tools.ts";

const tmp = (p: string) => realpathSync(mkdtempSync(join(tmpdir(), p)));

test(".mcp.json in Claude Code's format: stdio, http (and streamable-http), sse; a sandbox field there is ignored", () => {
  const specs = parseMcpJson(
    JSON.stringify({
      mcpServers: {
        fs: { command: "npx", args: ["-y", "x"], env: { A: "1" }, sandbox: false },
        web: { type: "streamable-http", url: "https://h/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        old: { type: "sse", url: "https://h/sse" },
        "my.server": { url: "https://h/x" },
      },
    }),
    "/w/.mcp.json",
  );
  expect(specs.map((s) => [s.name, s.type, s.sandbox])).toEqual([["fs", "stdio", true], ["web", "http", true], ["old", "sse", true], ["my_server", "http", true]]);
  expect(() => parseMcpJson("{", "/w/.mcp.json")).toThrow(/\/w\/\.mcp\.json: not valid JSON/);
  expect(() => parseMcpJson('{"mcpServers":{"x":{"type":"ws","url":"u"}}}', "f")).toThrow(/type must be stdio, http or sse/);
  expect(() => parseMcpJson('{"mcpServers":{"x":{}}}', "f")).toThrow(/a stdio server needs a command/);
});

test("${VAR} and ${VAR:-default} expand at launch; an unset variable names the field", () => {
  expect(expandVars("a-${X}-${Y:-d}", { X: "1" }, "w")).toBe("a-1-d");
  expect(() => expandVars("${NOPE}", {}, "f: server \"s\" headers.Authorization")).toThrow(/headers\.Authorization: \$\{NOPE\} is not set/);
  const s = expandSpec(specFrom({ name: "s", type: "http", url: "https://${HOST:-h}/mcp", headers: { Authorization: "Bearer ${T}" } }, "user", "f"), { T: "tok" });
  expect(s.url).toBe("https://h/mcp");
  expect(s.headers.Authorization).toBe("Bearer tok");
});

test("precedence by name: project reasonix.toml > .mcp.json > user; project servers blocked until trusted", () => {
  const home = tmp("rx-mcp-cfg-home-");
  const ws = tmp("rx-mcp-cfg-ws-");
  writeFileSync(join(home, "config.toml"), '[[plugins]]\nname = "a"\ncommand = "user-a"\n[[plugins]]\nname = "b"\ncommand = "user-b"\nsandbox = false\n[[plugins]]\nname = "c"\ncommand = "user-c"\n');
  writeFileSync(join(ws, ".mcp.json"), JSON.stringify({ mcpServers: { a: { command: "json-a" }, b: { command: "json-b" } } }));
  writeFileSync(join(ws, "reasonix.toml"), '[[plugins]]\nname = "a"\ncommand = "toml-a"\n');
  const untrusted = resolveServers(loadConfig({ home, cwd: ws }), ws);
  expect(untrusted.servers.map((s) => [s.name, s.command, s.scope, s.blocked ?? null])).toEqual([
    ["a", "toml-a", "project", NOT_TRUSTED],
    ["b", "json-b", "mcp.json", NOT_TRUSTED],
    ["c", "user-c", "user", null],
  ]);
  expect(untrusted.shadowed.map((s) => [s.name, s.scope])).toEqual([["a", "mcp.json"], ["a", "user"], ["b", "user"]]);
  const trusted = resolveServers(loadConfig({ home, cwd: ws, trustProject: true }), ws);
  expect(trusted.servers.every((s) => !s.blocked)).toBe(true);
  // The user's own sandbox = false holds only for the user's declaration.
  expect(trusted.shadowed.find((s) => s.name === "b")!.sandbox).toBe(false);
  expect(trusted.servers.find((s) => s.name === "b")!.sandbox).toBe(true);
});

test("tool names: mcp__server__tool, odd characters replaced, at most 64 characters", () => {
  expect(toolName("fs", "read_file")).toBe("mcp__fs__read_file");
  expect(toolName("fs", "read.file v2")).toBe("mcp__fs__read_file_v2");
  const long = toolName("server", "x".repeat(100));
  expect(long.length).toBe(64);
  expect(long).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
});
