// The reason named for a remote write that sftp-server reported as a bare
// "operation failed" (issue 34 item 4), from statvfs answers shaped as ssh2
// returns them (f_-prefixed uint64 fields; bigints when the value is large).
import { describe, expect, test } from "bun:test";
import { explainWriteFailure } from "../fs/write-failure.ts";

const vfs = (o: Partial<Record<"f_frsize" | "f_bavail" | "f_favail" | "f_flag", number | bigint>> = {}) => ({
  f_bsize: 4096, f_frsize: 4096, f_blocks: 262144, f_bfree: 200000, f_bavail: 190000,
  f_files: 65536, f_ffree: 60000, f_favail: 60000, f_sid: 0, f_flag: 0x2, f_namemax: 255, ...o,
});

describe("explainWriteFailure", () => {
  test("a read-only filesystem is named as such, whatever the free space", () => {
    expect(explainWriteFailure(vfs({ f_flag: 0x3, f_bavail: 0 }), 10)).toMatch(/^read-only file system/);
  });
  test("a full filesystem: no space, with the real free and needed sizes", () => {
    expect(explainWriteFailure(vfs({ f_bavail: 3 }), 3 * 1024 * 1024)).toBe(
      "no space left on device (12.0 KiB free on the remote filesystem, 3.0 MiB needed); nothing was written",
    );
    expect(explainWriteFailure(vfs({ f_bavail: 0n, f_frsize: 4096n }), 100)).toContain("(0 bytes free on the remote filesystem, 100 bytes needed)");
  });
  test("no inodes left", () => {
    expect(explainWriteFailure(vfs({ f_favail: 0 }), 100)).toMatch(/no free inodes/);
  });
  test("room left and writable: says what was ruled out and points at a quota, never 'no space' or NaN", () => {
    const m = explainWriteFailure(vfs({ f_bavail: 5_000_000_000n }), 100);
    expect(m).toMatch(/^operation failed \(18\.6 TiB free, not read-only: a disk quota/);
    expect(m).not.toMatch(/no space|NaN/);
  });
  test("a server without statvfs: no invented reason", () => {
    expect(explainWriteFailure(null, 100)).toMatch(/^operation failed \(the server gives no reason/);
  });
});
