// A stdio server that crashes is restarted on the next use, after a backoff;
// a call during the backoff fails at once with the reason and the wait.
import { expect, test } from "bun:test";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { specFrom } from "../config.ts";
import { McpConnection } from "../connection.ts";
import { probeSandbox } from "../../sandbox/index.ts";
import { resultText } from "../tools.ts";

const sandbox = await probeSandbox();
if (!sandbox.available) console.warn(`SKIPPED MCP restart test: the OS sandbox is unavailable (${sandbox.cause})`);
const fixture = join(import.meta.dir, "fixtures", "changing-server.ts");

test.skipIf(!sandbox.available)("a crashed stdio server comes back on next use with backoff", async () => {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "rx-mcp-restart-")));
  const env = { ...process.env, XDG_STATE_HOME: join(ws, ".state") };
  const conn = new McpConnection(specFrom({ name: "chg", command: process.execPath, args: [fixture, ws] }, "user", "test"), { workspace: ws, home: join(ws, ".home"), config: {}, env });
  try {
    await conn.start();
    expect(conn.status).toBe("ready");
    const signal = new AbortController().signal;
    const first = resultText(await conn.call("instance", {}, { signal }));
    await expect(conn.call("crash", {}, { signal })).rejects.toThrow();
    expect(conn.status).toBe("failed");
    expect(conn.error).toContain("crashing on request");
    // Within the backoff: refused at once, saying when it retries.
    await expect(conn.call("instance", {}, { signal })).rejects.toThrow(/retried in \d+ s/);
    let second = "";
    for (let i = 0; i < 40 && !second; i++) {
      await Bun.sleep(100);
      try {
        second = resultText(await conn.call("instance", {}, { signal }));
      } catch (e) {
        expect(String(e)).toMatch(/retried in/);
      }
    }
    expect(conn.status).toBe("ready");
    expect(second).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).not.toBe(first);
  } finally {
    await conn.close();
  }
});
