// Test support: build this host's release (binary, archive, SHA256SUMS) once
// per test process and share it between suites that need a real binary.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, hostTarget, targetName } from "../build.ts";
import { removeWhenDone } from "./temp-dirs.ts";

export interface BuiltDist {
  /** The dist directory: archives, SHA256SUMS, VERSION. */
  dir: string;
  /** The compiled binary for this host. */
  binary: string;
  target: string;
}

let pending: Promise<BuiltDist> | undefined;

export function builtDist(): Promise<BuiltDist> {
  pending ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "reasonix-dist-"));
    // ~100 MiB per build: never leave it behind.
    removeWhenDone(dir);
    // A binary to run, not a release: skip the zstd -19 upload artifact (a minute of CPU).
    await build({ single: true, outDir: dir, noUploadArtifacts: true });
    const t = hostTarget();
    return { dir, binary: join(dir, targetName(t), t.os === "windows" ? "reasonix.exe" : "reasonix"), target: targetName(t) };
  })();
  return pending;
}
