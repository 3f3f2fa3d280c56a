import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { zip, tarGz } from "../../../scripts/lib/archive.ts";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compareVersions, downloadRelease, parseSums } from "../download.ts";

const sha256Hex = (d: Uint8Array) => createHash("sha256").update(d).digest("hex");

const payload = new TextEncoder().encode("#!/bin/sh\necho fake reasonix\n");
const files = new Map<string, Uint8Array>();
let server: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  const mtime = new Date(0);
  files.set("reasonix-linux-x64.tar.gz", await tarGz([{ name: "reasonix", data: payload, mode: 0o755 }], mtime));
  files.set("reasonix-windows-x64.zip", zip([{ name: "reasonix.exe", data: payload, mode: 0o755 }], mtime));
  const sums = [...files].map(([n, d]) => `${sha256Hex(d)}  ${n}`).join("\n");
  files.set("SHA256SUMS", new TextEncoder().encode(`${sums}\n`));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const f = files.get(new URL(req.url).pathname.slice(1));
      return f ? new Response(Buffer.from(f)) : new Response("no", { status: 404 });
    },
  });
});
afterAll(() => server?.stop(true));

describe("release download", () => {
  test("unpacks the binary from a verified .tar.gz and a verified .zip", async () => {
    const base = `http://127.0.0.1:${server.port}`;
    const dir = mkdtempSync(join(tmpdir(), "rx-release-"));
    for (const target of ["reasonix-linux-x64", "reasonix-windows-x64"]) {
      await downloadRelease(base, target, join(dir, target));
      expect(new Uint8Array(readFileSync(join(dir, target)))).toEqual(payload);
      expect(statSync(join(dir, target)).mode & 0o777).toBe(0o755);
    }
    // Scratch files (archive, temp names) are gone.
    expect(readdirSync(dir).sort()).toEqual(["reasonix-linux-x64", "reasonix-windows-x64"]);
  });

  test("a missing archive is an HTTP error naming the URL, and leaves nothing behind", async () => {
    const base = `http://127.0.0.1:${server.port}`;
    const dir = mkdtempSync(join(tmpdir(), "rx-release-"));
    await expect(downloadRelease(base, "reasonix-darwin-arm64", join(dir, "bin"))).rejects.toThrow(`download failed: ${base}/reasonix-darwin-arm64.tar.gz (HTTP 404)`);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("SHA256SUMS parsing and version ordering", () => {
    const h = "a".repeat(64);
    expect(parseSums(`${h}  x.tar.gz\n${h} *y.zip\njunk\n`)).toEqual(new Map([["x.tar.gz", h], ["y.zip", h]]));
    expect(compareVersions("0.10.0", "0.9.9")).toBe(1);
    expect(compareVersions("v1.2.0", "1.2")).toBe(0);
    expect(compareVersions("1.2.3", "1.3.0")).toBe(-1);
  });
});
