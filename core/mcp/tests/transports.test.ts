// Streamable HTTP and SSE against server-everything on 127.0.0.1: tools,
// images, embedded resources, structuredContent, progress, and a reconnect
// after the HTTP server restarts.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { specFrom } from "../config.ts";
import { McpConnection } from "../connection.ts";
import { resultText } from "../tools.ts";
import { startEverythingHttp } from "../../testing/everything-http.ts";
import { freePort } from "../../testing/free-port.ts";

const everything = resolve(import.meta.dir, "../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const node = Bun.which("node");
const skip = !existsSync(everything) || !node;
if (skip) console.warn("SKIPPED MCP transport tests: server-everything or node is missing (npm ci)");

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const startEverything = (mode: "streamableHttp" | "sse", port: number) => startEverythingHttp(node!, everything, mode, port);

const ctx = () => ({ workspace: realpathSync(mkdtempSync(join(tmpdir(), "rx-mcp-http-"))), home: realpathSync(mkdtempSync(join(tmpdir(), "rx-mcp-home-"))), config: {} });

/** Call echo until the server answers (bounded: `tries` × 250 ms); every failure on the way must match `failure`. */
async function echoOnceBack(conn: McpConnection, tries: number, failure: RegExp): Promise<string> {
  for (let i = 0; i < tries; i++) {
    try {
      return resultText(await conn.call("echo", { message: "three" }, { signal: new AbortController().signal }));
    } catch (e) {
      expect(String(e)).toMatch(failure);
      await Bun.sleep(250);
    }
  }
  return "";
}

describe.skipIf(skip)("remote transports", () => {
  for (const [mode, type, path] of [["streamableHttp", "http", "/mcp"], ["sse", "sse", "/sse"]] as const) {
    test(`${type}: tools, image, embedded resource, structured content, progress`, async () => {
      const port = await freePort();
      const srv = await startEverything(mode, port);
      cleanups.push(srv.stop);
      const spec = specFrom({ name: "ev", type, url: `http://127.0.0.1:${port}${path}`, headers: { "X-Test": "${MCP_T_UNSET:-yes}" } }, "user", "test");
      const conn = new McpConnection(spec, ctx());
      cleanups.push(() => conn.close());
      await conn.start();
      expect(conn.error).toBeUndefined();
      expect(conn.status).toBe("ready");
      expect(conn.tools.map((t) => t.name)).toContain("echo");
      expect(conn.prompts.map((p) => p.name)).toContain("simple-prompt");
      const signal = new AbortController().signal;
      expect(resultText(await conn.call("echo", { message: "over " + type }, { signal }))).toBe(`Echo: over ${type}`);
      // An McpError the server threw is named once, not "MCP error -32602: MCP error -32602: …".
      expect((await conn.promptText("no-such-prompt", {}).catch((e) => e)).message).toBe("MCP error -32602: Prompt no-such-prompt not found");
      expect(resultText(await conn.call("get-tiny-image", {}, { signal }))).toMatch(/\[image: image\/png, \d+ bytes\]/);
      expect(resultText(await conn.call("get-resource-reference", { resourceType: "Text", resourceId: 1 }, { signal }))).toMatch(/\[resource demo:\/\/resource\/\S+ \(text\/plain\)\]/);
      expect(resultText(await conn.call("get-structured-content", { location: "New York" }, { signal }))).toContain("temperature");
      const progress: number[] = [];
      const r = await conn.call("trigger-long-running-operation", { duration: 0.3, steps: 3 }, { signal, onProgress: (p) => progress.push(p.progress) });
      expect(resultText(r)).toContain("Long running operation completed");
      // Notifications after the last one may race the result; what arrives is in order.
      expect(progress.length).toBeGreaterThan(0);
      expect(progress).toEqual([1, 2, 3].slice(0, progress.length));
    });
  }

  test("http: a server that went away is reconnected on the next use after its backoff", async () => {
    const port = await freePort();
    let srv = await startEverything("streamableHttp", port);
    const conn = new McpConnection(specFrom({ name: "ev", type: "http", url: `http://127.0.0.1:${port}/mcp` }, "user", "test"), ctx());
    cleanups.push(() => conn.close());
    await conn.start();
    const signal = new AbortController().signal;
    expect(resultText(await conn.call("echo", { message: "one" }, { signal }))).toBe("Echo: one");
    await srv.stop();
    // The old session is gone with the server: the call fails and the connection is marked for a restart.
    await expect(conn.call("echo", { message: "two" }, { signal })).rejects.toThrow();
    srv = await startEverything("streamableHttp", port);
    cleanups.push(srv.stop);
    expect(await echoOnceBack(conn, 40, /retried in|not available|Session|session|fetch|404|closed|connect/i)).toBe("Echo: three");
  });
});

describe.skipIf(skip)("a remote server that dies during a call (issue 33)", () => {
  for (const [mode, type, path] of [["streamableHttp", "http", "/mcp"], ["sse", "sse", "/sse"]] as const) {
  test(`${type}: the call fails within seconds naming the server and the cause; the next call names it too; it comes back after the backoff`, async () => {
    const port = await freePort();
    let srv = await startEverything(mode, port);
    const conn = new McpConnection(specFrom({ name: "ev", type, url: `http://127.0.0.1:${port}${path}` }, "user", "test"), ctx());
    cleanups.push(() => conn.close());
    await conn.start();
    expect(conn.status).toBe("ready");
    const signal = new AbortController().signal;
    let progressed!: () => void;
    const running = new Promise<void>((r) => (progressed = r));
    const t0 = performance.now();
    const call = conn.call("trigger-long-running-operation", { duration: 300, steps: 300 }, { signal, onProgress: () => progressed() }).then(
      () => new Error("the call succeeded after its server was killed"),
      (e: unknown) => e as Error,
    );
    // The server is inside the call (it reported progress): kill it now.
    await running;
    await srv.stop();
    const err = await call;
    const took = (performance.now() - t0) / 1000;
    // The default call timeout is 600 s and the operation 300 s: anything near those is the bug.
    expect(took).toBeLessThan(60);
    expect(err.message).toContain('MCP server "ev"');
    expect(err.message).not.toMatch(/Request timed out/);
    expect(err.message).toMatch(/connection|disconnected|closed/i);
    // The next call names the server as well (not a bare ECONNREFUSED).
    const next = await conn.call("echo", { message: "two" }, { signal }).catch((e: unknown) => e as Error);
    expect(next).toBeInstanceOf(Error);
    expect((next as Error).message).toContain('MCP server "ev"');
    srv = await startEverything(mode, port);
    cleanups.push(srv.stop);
    expect(await echoOnceBack(conn, 160, /MCP server "ev"/)).toBe("Echo: three");
  }, 120_000);
  }
});
