/**
 * Tests and benchmarks need a real compiled reasonix on the "remote". Build it
 * once per process (per version) into a temp dir, laid out like a release
 * directory: `reasonix-<platform>` plus SHA256SUMS.
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildInfo, platformId } from "../../core/version.ts";

export interface TestBuild {
  version: string;
  /** Release-style directory (for REASONIX_RELEASE_DIR). */
  releaseDir: string;
  /** The raw executable. */
  binary: string;
  platform: string;
}

/**
 * The limit for a test hook that builds a binary (this one, or scripts/lib/built-dist.ts):
 * on a loaded 2-core machine a build took 163 s here and 393 s for the dist, so
 * hooks of 180 s and 240 s ran out by chance.
 */
export const BUILD_HOOK_MS = 600_000;

const builds = new Map<string, Promise<TestBuild>>();
const dirs: string[] = [];
process.on("exit", () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

export function buildTestBinary(version = buildInfo().version): Promise<TestBuild> {
  let p = builds.get(version);
  if (!p) {
    p = (async () => {
      const { compileTarget, hostTarget } = await import("../../scripts/build.ts");
      const dir = mkdtempSync(join(tmpdir(), "rx-testbin-"));
      dirs.push(dir);
      const out = await compileTarget(hostTarget(), join(dir, "build"), { version, commit: "test", buildTime: "1970-01-01T00:00:00.000Z" });
      const platform = platformId();
      const binary = join(dir, `reasonix-${platform}`);
      copyFileSync(out, binary);
      rmSync(join(dir, "build"), { recursive: true, force: true });
      const sha = createHash("sha256").update(readFileSync(binary)).digest("hex");
      writeFileSync(join(dir, "SHA256SUMS"), `${sha}  reasonix-${platform}\n`);
      return { version, releaseDir: dir, binary, platform };
    })();
    builds.set(version, p);
  }
  return p;
}
