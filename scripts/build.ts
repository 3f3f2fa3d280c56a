// `npm run build`: one self-contained executable per platform, archives, the
// precompressed upload artifacts for `remote` (.zst) and SHA256SUMS under dist/. `npm run build -- --single` builds only this host.
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { tarGz, zip } from "./lib/archive.ts";
import { CODE_INDEX_WORKER, grammarPackPlugin } from "./lib/grammar-pack.ts";

export interface Target {
  os: "linux" | "darwin" | "windows";
  arch: "x64" | "arm64";
}

export const allTargets: Target[] = [
  { os: "linux", arch: "x64" },
  { os: "linux", arch: "arm64" },
  { os: "darwin", arch: "x64" },
  { os: "darwin", arch: "arm64" },
  { os: "windows", arch: "x64" },
];

export const hostTarget = (): Target => ({
  os: process.platform === "win32" ? "windows" : (process.platform as "linux" | "darwin"),
  arch: process.arch === "arm64" ? "arm64" : "x64",
});

const root = join(import.meta.dir, "..");

function git(args: string[]): string {
  const r = Bun.spawnSync(["git", ...args], { cwd: root, stdout: "pipe", stderr: "ignore" });
  return r.exitCode === 0 ? r.stdout.toString().trim() : "";
}

/** Version, commit and build time: the build time is the commit's, so rebuilds are byte-identical. */
export function buildStamp(): { version: string; commit: string; buildTime: string } {
  const epoch = process.env.SOURCE_DATE_EPOCH ?? git(["log", "-1", "--format=%ct"]);
  return {
    version: process.env.REASONIX_VERSION ?? pkg.version,
    commit: process.env.REASONIX_COMMIT ?? (git(["rev-parse", "--short=12", "HEAD"]) || "unknown"),
    buildTime: epoch ? new Date(Number(epoch) * 1000).toISOString() : "1970-01-01T00:00:00.000Z",
  };
}

export const targetName = (t: Target) => `reasonix-${t.os}-${t.arch}`;

/** opts.grammars false: leave code_index's grammars out (scripts/bench/tools.ts weighs them that way). */
export async function compileTarget(t: Target, outDir: string, stamp = buildStamp(), opts: { grammars?: boolean } = {}): Promise<string> {
  const dir = join(outDir, targetName(t));
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, t.os === "windows" ? "reasonix.exe" : "reasonix");
  const result = await Bun.build({
    // The first entrypoint is the program; a worker must be an entrypoint to be carried.
    entrypoints: [join(root, "cli/main.ts"), join(root, CODE_INDEX_WORKER)],
    compile: {
      target: `bun-${t.os}-${t.arch}` as Bun.Build.CompileTarget,
      outfile,
      // The binary runs inside arbitrary repositories: it must never pick up
      // their bunfig.toml, .env, tsconfig.json or package.json.
      autoloadDotenv: false,
      autoloadBunfig: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
    },
    // Splitting keeps the `--version` fast path in a tiny entry chunk; bytecode
    // skips parsing the rest at startup (see scripts/bench/startup.ts).
    splitting: true,
    bytecode: true,
    // Bytecode for each module's top level and the functions directly inside it;
    // deeper functions compile from source when first called. Measured (2 cores,
    // scripts/bench/tui.ts and startup.ts): every depth costs size, and depth 1 keeps
    // the chat's first frame (~30 ms CPU) and `--help` as fast as full bytecode
    // while the binary is +9.0 MiB over bare Bun instead of +12.7 (depth 0: +4.9 MiB,
    // first frame ~41 ms CPU; no bytecode: +3.1 MiB, first frame ~72 ms CPU).
    bytecodeDepth: 1,
    format: "esm",
    minify: true,
    sourcemap: "none",
    define: { __REASONIX_BUILD__: JSON.stringify(stamp) },
    // code_index's tree-sitter grammars, embedded as one compressed file.
    plugins: [grammarPackPlugin(opts.grammars ?? true)],
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error(`build failed for ${targetName(t)}`);
  }
  return outfile;
}

/**
 * The upload artifact for `reasonix remote`: the raw executable as `zstd -19
 * --long=27` (what the remote decompresses while it streams in), made once here
 * so no client ever has to spend a minute of CPU compressing it.
 */
export async function uploadArtifact(t: Target, binary: string, outDir: string): Promise<string> {
  const name = `${targetName(t)}.zst`;
  const out = join(outDir, name);
  const zstd = Bun.which("zstd");
  if (zstd) {
    const r = Bun.spawnSync([zstd, "-q", "-f", "-T0", "-19", "--long=27", binary, "-o", out], { stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`zstd failed for ${name}: ${r.stderr.toString().trim()}`);
  } else {
    const zlib = (await import("node:zlib")) as unknown as { zstdCompressSync(b: Uint8Array, o: { params: Record<number, number> }): Buffer; constants: Record<string, number> };
    const c = zlib.constants;
    const params = { [c.ZSTD_c_compressionLevel!]: 19, [c.ZSTD_c_enableLongDistanceMatching!]: 1, [c.ZSTD_c_windowLog!]: 27, [c.ZSTD_c_checksumFlag!]: 1 };
    writeFileSync(out, zlib.zstdCompressSync(readFileSync(binary), { params }));
  }
  return name;
}

async function archive(t: Target, binary: string, outDir: string, mtime: Date): Promise<string> {
  const data = readFileSync(binary);
  const entry = { name: t.os === "windows" ? "reasonix.exe" : "reasonix", data, mode: 0o755 };
  const name = `${targetName(t)}.${t.os === "windows" ? "zip" : "tar.gz"}`;
  const bytes = t.os === "windows" ? zip([entry], mtime) : await tarGz([entry], mtime);
  writeFileSync(join(outDir, name), bytes);
  return name;
}

export async function build(opts: { single: boolean; outDir: string; noUploadArtifacts?: boolean }): Promise<void> {
  const stamp = buildStamp();
  const targets = opts.single ? [hostTarget()] : allTargets;
  rmSync(opts.outDir, { recursive: true, force: true });
  mkdirSync(opts.outDir, { recursive: true });
  const sums: string[] = [];
  for (const t of targets) {
    const started = performance.now();
    const bin = await compileTarget(t, opts.outDir, stamp);
    chmodSync(bin, 0o755);
    const name = await archive(t, bin, opts.outDir, new Date(stamp.buildTime));
    const names = [name, ...(t.os === "windows" || opts.noUploadArtifacts ? [] : [await uploadArtifact(t, bin, opts.outDir)])];
    for (const n of names) sums.push(`${createHash("sha256").update(readFileSync(join(opts.outDir, n))).digest("hex")}  ${n}`);
    console.error(`built ${names.join(", ")} in ${((performance.now() - started) / 1000).toFixed(1)}s`);
  }
  writeFileSync(join(opts.outDir, "SHA256SUMS"), `${sums.join("\n")}\n`);
  // `reasonix upgrade --check` reads this to learn the newest version.
  writeFileSync(join(opts.outDir, "VERSION"), `${stamp.version}\n`);
  // Releases publish the installer beside the archives (curl …/install.sh | sh).
  copyFileSync(join(root, "install", "install.sh"), join(opts.outDir, "install.sh"));
  if (opts.single) {
    const t = hostTarget();
    symlinkSync(join(targetName(t), t.os === "windows" ? "reasonix.exe" : "reasonix"), join(opts.outDir, t.os === "windows" ? "reasonix.exe" : "reasonix"));
  }
  console.error(`reasonix ${stamp.version} (${stamp.commit}) → ${opts.outDir}`);
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const outIdx = args.indexOf("--out-dir");
  // The precompressed remote-upload files are for releases: --single (this machine's
  // binary, to run) and --no-upload-artifacts skip that minute of compression.
  const single = args.includes("--single");
  await build({ single, outDir: outIdx >= 0 ? args[outIdx + 1]! : join(root, "dist"), noUploadArtifacts: single || args.includes("--no-upload-artifacts") });
}
