// The UI's script and stylesheet are embedded gzipped (ui/embed.ts): a browser
// that accepts gzip gets those bytes as they are, any other client the same
// text inflated; both carry the CSP-safe headers and a long cache life.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { startServer, type RunningServer } from "../server.ts";
import { cleanup, tempDir } from "./helpers.ts";

let server: RunningServer;
let dir: string;
beforeAll(async () => {
  dir = tempDir("rx-assets-");
  server = await startServer({ host: "127.0.0.1", port: 0, auth: { mode: "none" }, workspace: dir, version: "test" });
});
afterAll(async () => {
  await server?.stop();
  cleanup(dir);
});

for (const [path, type, marker] of [["/assets/app.js", "text/javascript", "Message Reasonix"], ["/assets/app.css", "text/css", "--accent"]] as const) {
  test(`${path}: gzip as embedded for browsers, plain text for the rest, same content`, async () => {
    const zipped = await fetch(`http://${server.addr}${path}`, { headers: { "accept-encoding": "gzip, br" }, decompress: false } as RequestInit);
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("content-type")).toStartWith(type);
    expect(zipped.headers.get("cache-control")).toContain("immutable");
    const gz = new Uint8Array(await zipped.arrayBuffer());
    const plain = await fetch(`http://${server.addr}${path}`, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    const text = await plain.text();
    expect(gunzipSync(gz).toString("utf8")).toBe(text);
    expect(text.length).toBeGreaterThan(gz.length * 2);
    expect(text).toContain(marker);
  });
}
