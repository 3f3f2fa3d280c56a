import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, UsageError } from "../../errors.ts";
import { accountsUrl } from "../client.ts";
import { deleteCredentials, readCredentials, writeCredentials } from "../credentials.ts";

const dir = mkdtempSync(join(tmpdir(), "rx-accounts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("accounts credentials file", () => {
  test("written 0600 in a 0700 directory, read back, deleted", () => {
    const path = join(dir, "home", "accounts.json");
    writeCredentials({ url: "https://a.test", token: "t".repeat(43), email: "a@b.test", savedAt: "now" }, path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "home")).mode & 0o777).toBe(0o700);
    expect(readCredentials(path)).toMatchObject({ url: "https://a.test", email: "a@b.test" });
    expect(deleteCredentials(path)).toBe(true);
    expect(deleteCredentials(path)).toBe(false);
    expect(readCredentials(path)).toBeNull();
  });

  test("loosened permissions are tightened on read", () => {
    const path = join(dir, "loose.json");
    writeFileSync(path, JSON.stringify({ url: "https://a.test", token: "x", email: "e@x.test" }));
    chmodSync(path, 0o644);
    readCredentials(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test("a damaged file is an error naming the file and the field", () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{oops", { mode: 0o600 });
    expect(() => readCredentials(bad)).toThrow(ConfigError);
    expect(() => readCredentials(bad)).toThrow(bad);
    writeFileSync(bad, JSON.stringify({ url: "https://a.test", email: "e@x.test" }), { mode: 0o600 });
    expect(() => readCredentials(bad)).toThrow(/field "token"/);
  });
});

describe("accounts URL", () => {
  test("https anywhere, plain http only to loopback; trailing slashes dropped", () => {
    expect(accountsUrl("https://accounts.reasonix.io/")).toBe("https://accounts.reasonix.io");
    expect(accountsUrl("http://127.0.0.1:8787")).toBe("http://127.0.0.1:8787");
    expect(accountsUrl("http://localhost:8787/")).toBe("http://localhost:8787");
    expect(() => accountsUrl("http://accounts.example.test")).toThrow(UsageError);
    expect(() => accountsUrl("http://127.0.0.1.evil.test")).toThrow(/https/);
    expect(() => accountsUrl("ftp://x.test")).toThrow(UsageError);
    expect(() => accountsUrl("https://u:p@x.test")).toThrow(/credentials/);
    expect(() => accountsUrl("not a url")).toThrow(/not a URL/);
  });
});
