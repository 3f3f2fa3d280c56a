// Bounded reads of project inputs on real special files: a FIFO with no
// writer and /dev/zero are refused at once by type, a regular file over the
// limit by size, and nothing else changes for regular files and links to them.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashRegularFile, InputRefused, readRegularFile, readRegularHead } from "../bounded-read.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "rx-bounded-")));
const hasMkfifo = Bun.spawnSync(["sh", "-c", "command -v mkfifo"]).exitCode === 0;
if (!hasMkfifo) console.warn("SKIPPED bounded read of a FIFO: no mkfifo on this host");

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof InputRefused) return e.message;
    throw e;
  }
  return "not refused";
};

describe("bounded reads", () => {
  test.skipIf(!hasMkfifo)("a FIFO without a writer is refused by type, without blocking", () => {
    const fifo = join(dir, "pipe.toml");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    expect(refusal(() => readRegularFile(fifo))).toBe(`${fifo}: is a FIFO (named pipe), not a regular file`);
    expect(refusal(() => hashRegularFile(fifo, 1024))).toContain("is a FIFO");
    expect(refusal(() => readRegularHead(fifo, 1024))).toContain("is a FIFO");
  });

  test("/dev/zero, directly or through a symlink, and a directory are refused by type", () => {
    const link = join(dir, "zero.json");
    symlinkSync("/dev/zero", link);
    expect(refusal(() => readRegularFile(link))).toBe(`${link}: is a character device, not a regular file`);
    expect(refusal(() => readRegularHead("/dev/zero", 10))).toContain("is a character device");
    mkdirSync(join(dir, "d.toml"));
    expect(refusal(() => readRegularFile(join(dir, "d.toml")))).toBe(`${join(dir, "d.toml")}: is a directory, not a file`);
  });

  test("a regular file over the limit is refused by size; at the limit, and through a symlink, it reads whole; a head read cuts", () => {
    const big = join(dir, "big.toml");
    writeFileSync(big, "x".repeat(2000));
    expect(refusal(() => readRegularFile(big, 1999))).toBe(`${big}: is 2000 bytes, over the 1999 bytes limit of a project input`);
    expect(readRegularFile(big, 2000).length).toBe(2000);
    symlinkSync(big, join(dir, "link.toml"));
    expect(readRegularFile(join(dir, "link.toml"), 2000).toString()).toBe("x".repeat(2000));
    expect(hashRegularFile(big, 2000)).toEqual({ sha256: new Bun.CryptoHasher("sha256").update("x".repeat(2000)).digest("hex"), bytes: 2000 });
    expect(readRegularHead(big, 100)).toEqual({ data: Buffer.from("x".repeat(100)), truncated: true });
    expect(readRegularHead(big, 5000)).toEqual({ data: Buffer.from("x".repeat(2000)), truncated: false });
  });

  test("a missing file is the ordinary ENOENT, not a refusal", () => {
    expect(() => readRegularFile(join(dir, "absent"))).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });
});
