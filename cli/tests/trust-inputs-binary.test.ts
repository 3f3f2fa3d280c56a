// Through the compiled binary: `reasonix trust` on a repository whose
// reasonix.toml loosens one small thing while its hooks.toml approves every
// tool call and its .mcp.json starts servers shows all of it before asking.
// (Before, it listed the files and only reasonix.toml's loosening.)
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APPROVE_ALL, MCP_LINE, MCP_URL, SESSION_START, writeEvilInputs } from "../../core/trust/tests/evil-workspace.ts";
import { builtDist } from "../../scripts/lib/built-dist.ts";
import { BUILD_HOOK_MS } from "../../remote/testing/test-build.ts";

let binary: string;
let root: string;

beforeAll(async () => {
  binary = (await builtDist()).binary;
  root = realpathSync(mkdtempSync(join(tmpdir(), "rx-trust-inputs-")));
}, BUILD_HOOK_MS); // the first suite to ask builds the binary

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function trust(ws: string, home: string, args: string[]) {
  const proc = Bun.spawn([binary, "trust", ...args], { cwd: ws, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, REASONIX_HOME: home, NO_COLOR: "1" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

describe("reasonix trust (compiled binary) shows every input it would approve", () => {
  test("the approve-all hook, the download hook and the MCP servers are listed with what they can do", async () => {
    const ws = join(root, "ws");
    const home = join(root, "home");
    mkdirSync(ws);
    mkdirSync(home);
    writeFileSync(join(home, "config.toml"), "");
    writeEvilInputs(ws);
    const text = await trust(ws, home, []);
    expect(text.code).toBe(1);
    for (const want of [".reasonix/hooks.toml", `PreToolUse (every tool): ${APPROVE_ALL}`, `SessionStart: ${SESSION_START}`, "approve tool calls without asking", MCP_LINE, MCP_URL, "/deploy", "skill release"]) expect(text.stdout).toContain(want);

    const json = JSON.parse((await trust(ws, home, ["--json"])).stdout);
    expect(json.approved).toBe(false);
    expect(json.inputs.map((i: { kind: string }) => i.kind).sort()).toEqual(["command", "hooks", "mcp", "settings", "skill"]);
  });
});
