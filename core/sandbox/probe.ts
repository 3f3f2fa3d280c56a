// Which OS sandbox this machine offers and whether it actually works. Probed
// once per process (the answer cannot change under us in a way we could fix
// mid-session), and never when bash = "off".
import { existsSync } from "node:fs";

export type SandboxBackend = "bwrap" | "seatbelt" | "none";

export type RefusalCode = "bwrap-missing" | "userns-blocked" | "bwrap-failed" | "seatbelt-missing" | "seatbelt-failed" | "unsupported-platform";

export interface SandboxStatus {
  platform: NodeJS.Platform;
  backend: SandboxBackend;
  /** Absolute path of the backend binary, when found. */
  path?: string;
  version?: string;
  available: boolean;
  /** Why it is unavailable (user-facing). */
  cause?: string;
  /** What to do about it (user-facing). */
  fix?: string;
  code?: RefusalCode;
}

export const SEATBELT_PATH = "/usr/bin/sandbox-exec";
const PROBE_TIMEOUT_MS = 5000;
const OFF_HINT = 'or set [sandbox] bash = "off" to run bash unconfined (not recommended)';

interface RunResult { code: number | null; out: string; timedOut: boolean; spawnError?: string }

async function run(argv: string[], timeoutMs: number): Promise<RunResult> {
  let proc: ReturnType<typeof Bun.spawn<"ignore", "pipe", "pipe">>;
  try {
    proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  } catch (e) {
    // e.g. EACCES on a bwrap without the execute bit: a refusal, not a crash.
    return { code: null, out: "", timedOut: false, spawnError: (e as Error).message };
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, timeoutMs);
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, out: (out + err).trim(), timedOut };
}

export function findBwrap(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return Bun.which("bwrap", { PATH: env.PATH ?? "" }) ?? ["/usr/bin/bwrap", "/usr/local/bin/bwrap"].find((p) => existsSync(p));
}

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

/** Probe one bwrap binary (exported for tests; use probeSandbox). */
export async function probeBwrap(path: string | null = findBwrap() ?? null): Promise<SandboxStatus> {
  const base: SandboxStatus = { platform: "linux", backend: "bwrap", available: false };
  if (!path) {
    return {
      ...base,
      code: "bwrap-missing",
      cause: "bubblewrap (bwrap) is not installed",
      fix: `install it (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap) ${OFF_HINT}`,
    };
  }
  const argv = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--new-session", "--die-with-parent"];
  if (isRoot()) argv.push("--cap-drop", "ALL");
  // Both at once: the first sandboxed command waits for the slower of them, not for their sum.
  const [versionRun, res] = await Promise.all([run([path, "--version"], PROBE_TIMEOUT_MS), run([...argv, "true"], PROBE_TIMEOUT_MS)]);
  if (versionRun.spawnError) {
    return { ...base, path, code: "bwrap-failed", cause: `cannot execute ${path}: ${versionRun.spawnError}`, fix: `check the file's permissions or reinstall bubblewrap ${OFF_HINT}` };
  }
  const version = versionRun.out.replace(/^bubblewrap\s+/, "") || undefined;
  if (res.code === 0) return { ...base, path, version, available: true };
  const msg = res.timedOut ? `timed out after ${PROBE_TIMEOUT_MS} ms` : res.out || `exit ${res.code}`;
  if (/namespace|uid map|setting up uid|Operation not permitted|Permission denied/i.test(msg)) {
    return {
      ...base,
      path,
      version,
      code: "userns-blocked",
      cause: `bwrap cannot create user namespaces here (${msg})`,
      fix:
        "allow unprivileged user namespaces: on Ubuntu 24.04+ add an AppArmor profile for bwrap or run `sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0`; " +
        `elsewhere check kernel.unprivileged_userns_clone / user.max_user_namespaces; inside containers allow them (e.g. --security-opt seccomp=unconfined) ${OFF_HINT}`,
    };
  }
  return { ...base, path, version, code: "bwrap-failed", cause: `bwrap probe failed: ${msg}`, fix: `run \`reasonix sandbox check\` for details ${OFF_HINT}` };
}

async function probeSeatbelt(): Promise<SandboxStatus> {
  const base: SandboxStatus = { platform: "darwin", backend: "seatbelt", available: false };
  if (!existsSync(SEATBELT_PATH)) {
    return { ...base, code: "seatbelt-missing", cause: `${SEATBELT_PATH} is missing`, fix: `it ships with macOS; restore it ${OFF_HINT}` };
  }
  const res = await run([SEATBELT_PATH, "-p", "(version 1)(allow default)", "/usr/bin/true"], PROBE_TIMEOUT_MS);
  if (res.code === 0) return { ...base, path: SEATBELT_PATH, available: true };
  return { ...base, path: SEATBELT_PATH, code: "seatbelt-failed", cause: `sandbox-exec probe failed: ${res.out || `exit ${res.code}`}`, fix: OFF_HINT.replace(/^or /, "") };
}

function probeNow(platform: NodeJS.Platform): Promise<SandboxStatus> {
  if (platform === "linux") return probeBwrap();
  if (platform === "darwin") return probeSeatbelt();
  return Promise.resolve({
    platform,
    backend: "none",
    available: false,
    code: "unsupported-platform",
    cause: `Reasonix has no OS sandbox for bash on ${platform === "win32" ? "Windows" : platform}`,
    fix: 'set [sandbox] bash = "off" (file tools still enforce workspace_root, allow_write and forbid_read)',
  });
}

const cache = new Map<NodeJS.Platform, Promise<SandboxStatus>>();

/** Probe the backend once per process; later calls share the answer. */
export function probeSandbox(platform: NodeJS.Platform = process.platform): Promise<SandboxStatus> {
  let p = cache.get(platform);
  if (!p) {
    p = probeNow(platform);
    cache.set(platform, p);
  }
  return p;
}

/** For tests: forget the cached probe. */
export function resetSandboxProbe(): void {
  cache.clear();
}
