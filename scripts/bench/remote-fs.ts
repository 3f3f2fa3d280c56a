// Benchmark: `reasonix remote fs get/put` throughput ÷ OpenSSH `sftp` on loopback,
// both measured end to end (process start, connect, transfer) in the same run
// against the same real sshd. Goal: ratio ≥ 0.9 for both directions.
//
//   bun scripts/bench/remote-fs.ts [--mb 256] [--runs 3]
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, statSync, openSync, writeSync, closeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sshdUnavailable, startSshd } from "../../remote/testing/sshd-harness.ts";

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const MB = opt("mb", 256);
const RUNS = opt("runs", 3);

const why = sshdUnavailable();
if (why) {
  console.warn(`SKIPPED remote-fs benchmark: ${why}`);
  process.exit(0);
}

const root = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "rx-bench-fs-"));
const sshd = await startSshd();
try {
  const home = join(dir, "home");
  mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 });
  const env = { PATH: process.env.PATH!, HOME: home, REASONIX_HOME: join(dir, "rx"), NO_COLOR: "1" };
  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, [join(root, "cli/main.ts"), ...args], { env, cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    if (r.status !== 0) throw new Error(`reasonix ${args.join(" ")} failed: ${r.stderr}`);
  };
  cli(["remote", "add", "bench", `${sshd.user}@127.0.0.1:${sshd.port}`, "-i", sshd.clientKey]);
  cli(["remote", "test", "bench", "--accept-new"]);
  const kh = join(dir, "openssh_known_hosts");
  writeFileSync(kh, `${sshd.knownHostsLines().join("\n")}\n`);

  // Incompressible data so neither side can cheat with compression.
  const src = join(dir, "payload.bin");
  const fd = openSync(src, "w");
  const block = randomBytes(1024 * 1024);
  for (let i = 0; i < MB; i++) writeSync(fd, block);
  closeSync(fd);
  const bytes = statSync(src).size;
  sshd.runAsUser(`cp /dev/null "$HOME/seed"`);
  // The remote copy for `get`, written by the test user.
  spawnSync("cp", [src, join(sshd.home, "remote.bin")]);
  spawnSync("chown", [`${sshd.user}:`, join(sshd.home, "remote.bin")]);

  const sftp = (batch: string) => {
    const b = join(dir, "batch");
    writeFileSync(b, batch);
    const r = spawnSync(
      "sftp",
      ["-q", "-b", b, "-i", sshd.clientKey, "-P", String(sshd.port), "-o", `UserKnownHostsFile=${kh}`, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-F", "/dev/null", `${sshd.user}@127.0.0.1`],
      { env, stdio: ["ignore", "ignore", "pipe"] },
    );
    if (r.status !== 0) throw new Error(`sftp failed: ${r.stderr}`);
  };
  const time = (fn: () => void) => {
    const t = performance.now();
    fn();
    return (performance.now() - t) / 1000;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const results: Record<string, number[]> = { ours_put: [], sftp_put: [], ours_get: [], sftp_get: [] };
  const localOut = join(dir, "down.bin");
  // Alternate which tool goes first: the second writer of a run can be throttled by the
  // first one's dirty pages, and that must not count against either side.
  const steps = {
    sftp_put: () => sftp(`put ${src} up-sftp.bin\n`),
    ours_put: () => cli(["remote", "fs", "put", src, "bench:up-ours.bin"]),
    sftp_get: () => sftp(`get remote.bin ${localOut}\n`),
    ours_get: () => cli(["remote", "fs", "get", "bench:remote.bin", localOut]),
  };
  for (let i = 0; i < RUNS; i++) {
    const order = i % 2 === 0 ? ["sftp_put", "ours_put", "sftp_get", "ours_get"] : ["ours_put", "sftp_put", "ours_get", "sftp_get"];
    for (const k of order as (keyof typeof steps)[]) {
      rmSync(localOut, { force: true });
      spawnSync("sync");
      results[k]!.push(time(steps[k]));
    }
  }
  const mbps = (s: number) => bytes / s / 1e6;
  const line = (dir: "put" | "get") => {
    const ours = mbps(median(results[`ours_${dir}`]!));
    const ref = mbps(median(results[`sftp_${dir}`]!));
    return { ours_mb_s: +ours.toFixed(1), sftp_mb_s: +ref.toFixed(1), ratio: +(ours / ref).toFixed(2) };
  };
  const out = { file_mb: MB, runs: RUNS, put: line("put"), get: line("get"), goal: "ratio >= 0.9" };
  console.log(JSON.stringify(out, null, 2));
} finally {
  await sshd.stop();
  rmSync(dir, { recursive: true, force: true });
}
