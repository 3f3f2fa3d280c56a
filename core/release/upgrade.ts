import { mkdirSync, renameSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ReasonixError } from "../errors.ts";
import { buildInfo, platformId } from "../version.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { homePaths } from "../home.ts";
import { compareVersions, downloadFile, downloadRelease, fetchText, parseSums, releaseBase, verifyFile } from "./download.ts";

export interface UpgradeResult {
  current: string;
  latest: string;
  updateAvailable: boolean;
  installed: boolean;
  path: string;
  message: string;
}

/** The binary we are running, or an error when running from source under bun. */
function selfPath(): string {
  const exe = process.execPath;
  if (/^bun(\.exe)?$/.test(basename(exe)) || buildInfo().commit === "dev") {
    throw new ReasonixError("upgrade_from_source", "upgrade replaces an installed reasonix binary; this is a source checkout run by bun", {
      hint: "use git pull && npm ci, or install with the install.sh script",
    });
  }
  return exe;
}

/**
 * Keep this platform's precompressed upload artifact (`reasonix-<platform>.zst`)
 * where `reasonix remote` looks for it, so the first install on a remote host
 * sends the release's zstd -19 copy instead of compressing. Best effort: a
 * release without one, or a failed download, changes nothing.
 */
export async function keepUploadArtifact(base: string, version: string): Promise<void> {
  const name = `reasonix-${platformId()}.zst`;
  const sums = await fetchText(`${base}/SHA256SUMS`);
  if (!parseSums(sums).has(name)) return;
  const dir = join(homePaths().home, "cache", "remote", `release-${version}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const dest = join(dir, name);
  await downloadFile(`${base}/${name}`, dest);
  try {
    await verifyFile(dest, sums, name);
  } catch (e) {
    unlinkSync(dest);
    throw e;
  }
  writeFileAtomic(join(dir, "SHA256SUMS"), sums, { mode: 0o600 });
}

export async function upgrade(opts: { check: boolean; version?: string; force: boolean }): Promise<UpgradeResult> {
  const path = selfPath();
  const current = buildInfo().version;
  const base = releaseBase(opts.version);
  const latest = opts.version?.replace(/^v/, "") ?? (await fetchText(`${base}/VERSION`)).trim();
  const updateAvailable = compareVersions(latest, current) > 0;
  const res = { current, latest, updateAvailable, installed: false, path };
  if (opts.check) {
    return { ...res, message: updateAvailable ? `reasonix ${latest} is available (you have ${current}); run: reasonix upgrade` : `reasonix ${current} is up to date` };
  }
  if (latest === current && !opts.force) return { ...res, message: `reasonix ${current} is already installed at ${path}` };

  // Stage beside the target so the final rename stays on one filesystem (atomic).
  const staged = join(dirname(path), `.${basename(path)}.upgrade-${process.pid}`);
  try {
    await downloadRelease(base, `reasonix-${platformId()}`, staged);
    const probe = Bun.spawnSync([staged, "--version"], { stdout: "pipe", stderr: "pipe" });
    const got = probe.stdout.toString().trim();
    if (probe.exitCode !== 0 || got !== `reasonix ${latest}`) {
      throw new ReasonixError("upgrade_bad_binary", `the downloaded binary reports "${got || probe.stderr.toString().trim()}", expected reasonix ${latest}; nothing was changed`);
    }
    renameSync(staged, path);
    await keepUploadArtifact(base, latest).catch(() => {});
  } catch (e) {
    try { unlinkSync(staged); } catch {}
    if (e instanceof ReasonixError) throw e;
    throw new ReasonixError("upgrade_failed", `could not replace ${path}: ${(e as Error).message}`);
  }
  return { ...res, installed: true, message: `upgraded reasonix ${current} → ${latest} at ${path}` };
}
