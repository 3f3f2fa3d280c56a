// Permission rules over MCP tools: `mcp__srv__tool`, `mcp__srv__*`, `mcp__srv`;
// installed servers' tools need no per-call prompt, deny rules always win,
// read-only and plan mode still hold back tools without readOnlyHint.
import { expect, test } from "bun:test";
import { Permissions, parseRule } from "../../permissions/index.ts";
import type { ToolDefinition } from "../../tools/types.ts";

const tool = (name: string, kind: ToolDefinition["kind"]): ToolDefinition => ({
  name, kind, description: "", inputSchema: { type: "object" }, summarize: () => name, run: async () => ({ ok: true, output: "" }),
});
const writer = tool("mcp__everything__toggle-simulated-logging", "external");
const reader = tool("mcp__everything__echo", "read");
const other = tool("mcp__evil__echo", "external");

const perms = (o: { deny?: string[]; ask?: string[]; allow?: string[]; mode?: "ask" | "read-only" | "plan" | "auto" } = {}) =>
  new Permissions({ mode: o.mode ?? "ask", allow: o.allow ?? [], ask: o.ask ?? [], deny: o.deny ?? [], headless: true, workspace: "/tmp" });

test("an installed server's tools run without a prompt, even headless in ask mode", () => {
  expect(perms().check(writer, {}).action).toBe("allow");
  expect(perms().check(reader, {}).action).toBe("allow");
});

test("deny rules win: exact tool, server wildcard and bare server name; other servers untouched", () => {
  expect(perms({ deny: ["mcp__everything__echo"] }).check(reader, {}).action).toBe("deny");
  expect(perms({ deny: ["mcp__everything__*"] }).check(writer, {}).action).toBe("deny");
  expect(perms({ deny: ["mcp__everything"] }).check(reader, {}).action).toBe("deny");
  expect(perms({ deny: ["mcp__everything__*"] }).check(other, {}).action).toBe("allow");
  expect(perms({ deny: ["mcp__every"] }).check(reader, {}).action).toBe("allow");
  const d = perms({ deny: ["mcp__everything__*"], mode: "auto" }).check(writer, {});
  expect(d.reason).toContain("mcp__everything__*");
});

test("an ask rule makes a headless run refuse with the rule named", () => {
  const d = perms({ ask: ["mcp__everything__*"] }).check(writer, {});
  expect(d.action).toBe("deny");
  expect(d.reason).toContain("mcp__everything__*");
});

test("read-only and plan mode block tools without readOnlyHint, not the readers", () => {
  expect(perms({ mode: "read-only" }).check(writer, {}).action).toBe("deny");
  expect(perms({ mode: "read-only" }).check(reader, {}).action).toBe("allow");
  expect(perms({ mode: "plan" }).check(writer, {}).action).toBe("deny");
});

test("a wildcard is only accepted as mcp__<server>__*", () => {
  expect(() => parseRule("Bash*")).toThrow(/only an MCP server/);
  expect(() => parseRule("mcp__*")).toThrow(/only an MCP server/);
  expect(() => parseRule("mcp__a__*(x)")).toThrow(/only an MCP server/);
  expect(parseRule("mcp__a-b__*").name).toBe("mcp__a-b__*");
});
