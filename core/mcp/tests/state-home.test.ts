// A stdio server's private state directory follows $REASONIX_HOME (issue 33):
// two homes never share it, and the default home keeps the path it always had.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { specFrom } from "../config.ts";
import { McpConnection } from "../connection.ts";

const node = Bun.which("node");
if (!node) console.warn("SKIPPED MCP state-home tests: node is not installed (the stub server runs on it)");

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = (p: string) => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), p)));
  dirs.push(d);
  return d;
};

/** Start a stub that writes a file into its cache dir and says where, then exits; the path it used. */
async function stateOf(home: string, workspace: string, env: NodeJS.ProcessEnv): Promise<string> {
  const script = "const f=require('path').join(process.env.XDG_CACHE_HOME,'mine');require('fs').writeFileSync(f,'x');console.error('CACHE='+process.env.XDG_CACHE_HOME);process.exit(2)";
  const spec = specFrom({ name: "stateful", command: node!, args: ["-e", script], sandbox: false }, "user", "test");
  const conn = new McpConnection(spec, { workspace, home, config: {}, env });
  await conn.start();
  await conn.close();
  const m = /CACHE=(\S+)/.exec(conn.error ?? "");
  if (!m) throw new Error(`the stub did not report its cache dir: ${conn.error}`);
  return m[1]!;
}

describe.skipIf(!node)("MCP server state and REASONIX_HOME", () => {
  test("two homes do not share a server's state; the default home keeps ~/.local/state/reasonix/mcp", async () => {
    const user = temp("rx-mcp-user-");
    const ws = temp("rx-mcp-ws-");
    const env = { PATH: process.env.PATH, HOME: user };
    const a = temp("rx-home-a-");
    const b = temp("rx-home-b-");
    const inA = await stateOf(a, ws, { ...env, REASONIX_HOME: a });
    const inB = await stateOf(b, ws, { ...env, REASONIX_HOME: b });
    expect(inA).not.toBe(inB);
    expect(inB.startsWith(join(inA, ".."))).toBe(false);
    // The same home gives the same state (a server's files persist across runs).
    expect(await stateOf(a, ws, { ...env, REASONIX_HOME: a })).toBe(inA);
    // The default home keeps its old place: nothing to migrate.
    const def = join(user, ".reasonix");
    expect(await stateOf(def, ws, env)).toBe(join(user, ".local", "state", "reasonix", "mcp", "stateful-user", "cache"));
    expect(inA.startsWith(join(user, ".local", "state", "reasonix", "mcp") + "/")).toBe(false);
  }, 60_000);
});
