/**
 * Make sure a version-matched `reasonix serve` runs on the remote for a
 * workspace, and return how to reach it. Reuses a live one; replaces one of
 * another version; installs the binary when missing; serialises concurrent
 * clients with a remote mkdir lock so two connects give one launch.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { fetchText, parseSums, releaseBase } from "../../core/release/download.ts";
import { join } from "node:path";
import type { Client } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";
import { homePaths } from "../../core/home.ts";
import { buildInfo } from "../../core/version.ts";
import type { ServeInstall } from "../hosts/types.ts";
import { normalisePlatform } from "../hosts/probe.ts";
import { REMOTE_SH, execChannel, runScript, shQuote } from "../ssh/exec.ts";
import { httpViaSsh, parseHostPort, type HostPort } from "../tunnel/http.ts";
import { compressedCacheName, findCompressed, resolveArtifact, type BinaryArtifact, type Codec } from "./artifact.ts";
import { expectedRatio, measureUpload, planUpload, type Plan } from "./link-speed.ts";
import { compressStream, fileChunks } from "./stream-compress.ts";
import { FETCH_SCRIPT, HOLD_SCRIPT, LOCK_SCRIPT, NPM_INSTALL_SCRIPT, PUBLISH_SCRIPT, START_SCRIPT, STATE_SCRIPT, STOP_SCRIPT, VERIFY_SCRIPT, parseKv } from "./scripts.ts";
import { uploadBinary, type Payload } from "./upload.ts";

export interface ServeInfo {
  pid: number;
  addr: HostPort;
  token: string;
  version: string;
  /** Absolute workspace path on the remote. */
  workspace: string;
  slug: string;
  startedAt: string;
  reused: boolean;
}

export type BootstrapEvent =
  | { event: "installing"; phase: "download" | "extract" | "compress" | "upload" | "remote_download" | "npm"; done: number; total: number }
  /** A faster source did not work out (e.g. the remote has no internet); the next one follows. */
  | { event: "install_fallback"; from: InstallSource["source"]; reason: string }
  | { event: "installed"; bytes: number; binary_size: number; codec: Codec; ms: number }
  /**
   * Where the upload comes from: a compressed copy made earlier (`cached`), the binary
   * compressed while it streams (`stream`, level chosen from the measured link speed),
   * or the binary as is (`raw`, a fast link).
   */
  | { event: "install_source" } & InstallSource
  | { event: "stopping_old"; pid: number; version: string }
  | { event: "starting" }
  /** Another client holds the lock (installing or starting); its own progress line, when it has one. */
  | { event: "waiting_for_lock"; holder: string; phase?: string; done?: number; total?: number };

export interface InstallSource {
  source: "remote_download" | "cached" | "stream" | "raw";
  url?: string;
  codec: Codec;
  level?: number;
  bytes?: number;
  link_bytes_per_s?: number;
}

export interface BootstrapOptions {
  /** Raw workspace as configured (`~/x` expands on the remote). Default `~`. */
  workspace?: string;
  version?: string;
  install?: ServeInstall;
  onEvent?: (e: BootstrapEvent) => void;
  /** Upload this executable instead of looking one up (tests, benchmarks). */
  binaryPath?: string;
  releaseDir?: string;
  /** Local cache of compressed binaries (default $REASONIX_HOME/cache/remote). */
  cacheDir?: string;
  /** zstd level for the upload (default 19). */
  compressionLevel?: number;
  /**
   * Replace the serve even when a healthy one runs (`remote serve restart`). The token
   * persists across restarts (open browser tabs keep working) unless `newToken`.
   */
  restart?: boolean;
  newToken?: boolean;
}

export interface RemoteState {
  os: string;
  arch: string;
  platform: string | null;
  home: string;
  workspace: string;
  slug: string;
  haveBin: boolean;
  tools: Set<string>;
  locked: boolean;
  json?: { pid?: number; addr?: string; workspace?: string; version?: string; started_at?: string };
  pid?: number;
  alive: boolean;
  /** The remote checked the pid: our uid, started with our own pid file for this slug. */
  ours: boolean;
  args: string;
  token?: string;
  /** The workspace directory does not exist (deleted under a recorded serve); only with `allowMissing`. */
  workspaceMissing: boolean;
}

const fail = (code: string, message: string, hint?: string) => new ReasonixError(code, message, { hint });

/**
 * The workspace directory is missing. "deleted?" only when a serve was recorded for it (it
 * existed once); a directory nobody ever created is just named as not existing.
 */
export const workspaceMissing = (path: string, servedBefore: boolean) =>
  servedBefore
    ? fail("remote_workspace_missing", `remote workspace ${path} does not exist (deleted?)`, "create it on the remote, or pass --workspace DIR; `remote serve status|stop` still manage a serve left running there")
    : fail("remote_workspace_missing", `remote workspace ${path} does not exist`, `create it on the remote (mkdir -p '${path.replace(/'/g, "'\\''")}'), or pass --workspace DIR`);

/**
 * The remote's platform, tools and the recorded serve for `workspace`. A missing
 * workspace is an error unless `allowMissing` (status/stop must still find a serve
 * whose directory was deleted under it).
 */
export async function readRemoteState(
  client: Client,
  workspace: string,
  version: string,
  lockId?: string,
  opts: { allowMissing?: boolean; onEvent?: (e: BootstrapEvent) => void } = {},
): Promise<RemoteState> {
  const onLine = (line: string) => {
    if (!line.startsWith("waiting=")) return;
    const [holder = "", progress = ""] = line.slice(8).split("|");
    const [phase, done, total] = progress.trim().split(/\s+/);
    opts.onEvent?.({ event: "waiting_for_lock", holder, ...(phase ? { phase, done: Number(done) || 0, total: Number(total) || 0 } : {}) });
  };
  const res = await runScript(client, STATE_SCRIPT, { args: [workspace, version, lockId ? "lock" : "nolock", lockId ?? ""], timeoutMs: 180_000, onLine });
  const kv = parseKv(res.stdout);
  if (kv.has("error")) throw fail("remote_state", `remote: ${kv.get("error")}`);
  // Without a serve recorded for it, a missing workspace leaves nothing to manage.
  if (kv.has("missing_workspace") && (!opts.allowMissing || !kv.has("slug"))) throw workspaceMissing(kv.get("missing_workspace")!, kv.has("slug"));
  if (!kv.has("slug")) throw fail("remote_state", `remote state script failed (exit ${res.code}): ${res.stderr.trim() || res.stdout.trim()}`);
  if (kv.get("lock_timeout")) throw fail("remote_locked", "another client has held the remote serve lock for too long; try again");
  let json: RemoteState["json"];
  try {
    json = kv.has("json") ? JSON.parse(kv.get("json")!) : undefined;
  } catch {
    json = undefined; // a torn or hand-edited file: treat as absent
  }
  const os = kv.get("os") ?? "";
  const arch = kv.get("arch") ?? "";
  const pid = Number(kv.get("pid"));
  return {
    os,
    arch,
    platform: normalisePlatform(os, arch),
    home: kv.get("home") ?? "",
    workspace: kv.get("workspace")!,
    slug: kv.get("slug")!,
    haveBin: kv.get("have_bin") === "1",
    tools: new Set([...kv.keys()].filter((k) => k.startsWith("tool_")).map((k) => k.slice(5))),
    locked: kv.get("locked") === "1",
    json,
    pid: Number.isInteger(pid) && pid > 0 ? pid : undefined,
    alive: kv.get("alive") === "1",
    ours: kv.get("ours") === "1",
    args: kv.get("args") ?? "",
    token: kv.get("token"),
    workspaceMissing: kv.has("missing_workspace"),
  };
}

/** Is the recorded process our serve for this slug (whatever its version)? */
export const isOurServe = (s: RemoteState) => s.alive && s.ours && / serve /.test(` ${s.args} `) && s.args.includes(`serve-${s.slug}.pid`);
const binPath = (s: RemoteState, version: string) => `${s.home}/.reasonix/remote/bin/reasonix-${version}`;

/** The serve answers with the expected version and accepts our token. */
export async function checkServe(client: Client, addr: HostPort, token: string, version: string): Promise<{ ok: boolean; why?: string; workspace?: string }> {
  try {
    const health = await httpViaSsh(client, addr, "/healthz", { timeoutMs: 10_000 });
    if (health.status !== 200) return { ok: false, why: `/healthz answered ${health.status}` };
    const h = JSON.parse(health.body) as { version?: string };
    if (h.version !== version) return { ok: false, why: `serve reports version ${h.version}, expected ${version}` };
    const st = await httpViaSsh(client, addr, "/api/status", { headers: { authorization: `Bearer ${token}` }, timeoutMs: 10_000 });
    if (st.status !== 200) return { ok: false, why: `/api/status answered ${st.status}` };
    return { ok: true, workspace: (JSON.parse(st.body) as { workspace?: string }).workspace };
  } catch (e) {
    return { ok: false, why: (e as Error).message };
  }
}

function reusable(s: RemoteState, version: string): boolean {
  // The record must describe this very pid: an address left over from an earlier serve
  // may be held by anyone now, and the token must never be sent there.
  return isOurServe(s) && !!s.token && !!s.json?.addr && s.json.pid === s.pid && s.json.version === version && s.json.workspace === s.workspace && s.args.includes(`/reasonix-${version} `);
}

async function tryReuse(client: Client, s: RemoteState, version: string): Promise<ServeInfo | null> {
  if (!reusable(s, version)) return null;
  const addr = parseHostPort(s.json!.addr!);
  const check = await checkServe(client, addr, s.token!, version);
  if (!check.ok) return null;
  return { pid: s.pid!, addr, token: s.token!, version, workspace: s.workspace, slug: s.slug, startedAt: s.json!.started_at ?? "", reused: true };
}

async function kv(client: Client, script: string, args: string[], timeoutMs = 60_000): Promise<Map<string, string>> {
  const res = await runScript(client, script, { args, timeoutMs });
  return parseKv(res.stdout + (res.stderr ? `\nstderr=${res.stderr.trim()}` : ""));
}

/**
 * Is a remembered serve (from the local cache or an earlier connection) still the
 * live serve of ours at that address? Asked of the remote before the token is sent.
 */
export async function isStillOurServe(client: Client, info: Pick<ServeInfo, "slug" | "pid" | "addr"> & { workspace?: string }): Promise<boolean> {
  if (!info.slug || !Number.isInteger(info.pid) || info.pid <= 0) return false;
  const r = await kv(client, VERIFY_SCRIPT, [info.slug, String(info.pid), `${info.addr.host}:${info.addr.port}`, info.workspace ?? ""], 30_000);
  if (r.get("workspace_missing")) throw workspaceMissing(info.workspace!, true);
  return r.get("ours") === "1";
}

export async function stopServe(client: Client, slug: string, pid: number): Promise<"stopped" | "not_running" | "not_ours"> {
  const r = await kv(client, STOP_SCRIPT, [slug, String(pid)], 30_000);
  if (r.get("stopped")) return "stopped";
  if (r.get("not_ours")) return "not_ours";
  if (r.get("was_running") === "0") return "not_running";
  throw fail("stop_failed", `could not stop remote serve ${pid}: ${r.get("error") ?? r.get("stderr") ?? "unknown error"}`);
}

async function install(client: Client, s: RemoteState, version: string, o: BootstrapOptions): Promise<void> {
  const mode = o.install ?? "auto";
  if (mode === "never") {
    throw fail("serve_missing", `reasonix ${version} is not installed on the remote (${binPath(s, version)}) and serve_install = "never"`, 'install it there yourself, or set serve_install = "auto"');
  }
  if (mode === "npm") {
    o.onEvent?.({ event: "installing", phase: "npm", done: 0, total: 0 });
    const r = await kv(client, NPM_INSTALL_SCRIPT, [version], 600_000);
    if (!r.get("installed")) throw fail("install_failed", `npm install on the remote failed: ${r.get("error") ?? r.get("stderr") ?? "unknown error"}`);
    return;
  }
  const started = performance.now();
  if (await remoteDownload(client, s, version, o, started)) return;
  const cacheDir = o.cacheDir ?? join(homePaths().home, "cache", "remote");
  const progress = (phase: "download" | "extract" | "compress", done: number, total: number) => o.onEvent?.({ event: "installing", phase, done, total });
  const art = await resolveArtifact({ platform: s.platform!, version, binaryPath: o.binaryPath, releaseDir: o.releaseDir, cacheDir, onProgress: progress });
  if (!["sha256sum", "shasum", "openssl"].some((t) => s.tools.has(t))) {
    throw fail("install_failed", "the remote has none of sha256sum, shasum or openssl to verify the upload", 'install coreutils there, or use serve_install = "npm"');
  }
  const { payload, source } = await choosePayload(client, art, s, o, cacheDir);
  o.onEvent?.({ event: "install_source", ...source });
  const up = await uploadBinary(client, art, payload, (done, total) => o.onEvent?.({ event: "installing", phase: "upload", done, total }));
  // ms covers the whole install (lookup, cache, upload, remote check), not just the transfer.
  o.onEvent?.({ event: "installed", bytes: up.bytesSent, binary_size: art.size, codec: payload.codec, ms: Math.round(performance.now() - started) });
}

/**
 * Source (a): the remote downloads the release artifact itself, checked against the
 * SHA-256 the local side read from SHA256SUMS. Only where a release URL is meant to
 * be used (not for an explicit binary, nor for a local release directory unless
 * $REASONIX_DOWNLOAD_URL names a mirror). True when it installed the binary.
 */
async function remoteDownload(client: Client, s: RemoteState, version: string, o: BootstrapOptions, started: number): Promise<boolean> {
  const env = process.env;
  const releaseDir = o.releaseDir ?? env.REASONIX_RELEASE_DIR;
  if (o.binaryPath || (releaseDir && !env.REASONIX_DOWNLOAD_URL)) return false;
  if (!s.tools.has("curl") && !s.tools.has("wget")) return false;
  if (!["sha256sum", "shasum", "openssl"].some((t) => s.tools.has(t))) return false;
  const name = `reasonix-${s.platform}`;
  const base = releaseBase(version, env);
  let sums: string;
  try {
    sums = releaseDir && existsSync(join(releaseDir, "SHA256SUMS")) ? readFileSync(join(releaseDir, "SHA256SUMS"), "utf8") : await withTimeout(fetchText(`${base}/SHA256SUMS`), 10_000);
  } catch {
    return false; // we cannot vouch for anything the remote would fetch
  }
  const listed = parseSums(sums);
  const kind = s.tools.has("zstd") && listed.has(`${name}.zst`) ? "zst" : s.tools.has("gzip") && s.tools.has("tar") && listed.has(`${name}.tar.gz`) ? "tgz" : null;
  if (!kind) return false;
  const file = `${name}.${kind === "zst" ? "zst" : "tar.gz"}`;
  const url = `${base}/${file}`;
  o.onEvent?.({ event: "install_source", source: "remote_download", codec: kind === "zst" ? "zstd" : "gzip", url });
  const res = await runScript(client, FETCH_SCRIPT, {
    args: [version, url, kind, listed.get(file)!],
    timeoutMs: 960_000,
    onLine: (line) => {
      if (line.startsWith("progress=")) o.onEvent?.({ event: "installing", phase: "remote_download", done: Number(line.slice(9)) || 0, total: 0 });
    },
  }).catch((e: Error) => ({ stdout: `error=${e.message}`, stderr: "", code: 1, signal: null }));
  const r = parseKv(res.stdout);
  if (r.get("installed") === "1") {
    o.onEvent?.({ event: "installed", bytes: 0, binary_size: Number(r.get("bytes")) || 0, codec: kind === "zst" ? "zstd" : "gzip", ms: Math.round(performance.now() - started) });
    return true;
  }
  o.onEvent?.({ event: "install_fallback", from: "remote_download", reason: r.get("error") ?? (res.stderr.trim() || "unknown error") });
  return false;
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error(`no answer within ${ms} ms`)), ms).unref?.())]);

/**
 * What to send, fastest first: a compressed copy already made for this build
 * (cache or release), else the binary compressed while it streams at the level
 * the measured link speed calls for (raw on a fast link).
 */
async function choosePayload(client: Client, art: BinaryArtifact, s: RemoteState, o: BootstrapOptions, cacheDir: string): Promise<{ payload: Payload; source: InstallSource }> {
  const codecs = { zstd: s.tools.has("zstd"), gzip: s.tools.has("gzip") };
  const ready = findCompressed(art, cacheDir, codecs);
  if (ready) {
    const size = statSync(ready.path).size;
    return { payload: { codec: ready.codec, chunks: fileChunks(ready.path), progress: (sent) => [sent, size] }, source: { source: "cached", codec: ready.codec, bytes: size } };
  }
  // REASONIX_REMOTE_ZSTD_LEVEL (or compressionLevel) fixes the level; otherwise the link decides.
  const envLevel = Number(process.env.REASONIX_REMOTE_ZSTD_LEVEL);
  const fixed = o.compressionLevel ?? (Number.isInteger(envLevel) && envLevel > 0 && envLevel <= 22 ? envLevel : undefined);
  let plan: Plan;
  let bw: number | null = null;
  if (fixed !== undefined && (codecs.zstd || codecs.gzip)) plan = { codec: codecs.zstd ? "zstd" : "gzip", level: codecs.zstd ? fixed : Math.min(9, fixed), estimate: 0 };
  else {
    bw = await measureUpload(client);
    plan = planUpload(art.size, bw, codecs);
  }
  const link = bw === null ? {} : { link_bytes_per_s: Math.round(bw) };
  if (plan.codec === "raw") {
    return { payload: { codec: "raw", chunks: fileChunks(art.path), progress: (sent) => [sent, art.size] }, source: { source: "raw", codec: "raw", ...link } };
  }
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const stream = await compressStream(art, plan.codec, plan.level, join(cacheDir, compressedCacheName(art.sha256, plan.codec, plan.level)));
  return {
    payload: {
      codec: plan.codec,
      chunks: stream.chunks,
      // The compressed size is known only at the end: until then the total is an estimate
      // and the bar stops short of 100 %, which only the last report (exact) reaches.
      progress: (sent) => {
        const p = stream.produced();
        if (p.complete) return [sent, p.bytes];
        const est = Math.max(sent + 1, Math.round(art.size * expectedRatio(plan.codec as "zstd" | "gzip", plan.level)));
        return [sent, est];
      },
      abort: () => stream.abort(),
    },
    source: { source: "stream", codec: plan.codec, level: plan.level, ...link },
  };
}

async function startServe(client: Client, s: RemoteState, version: string, token: string): Promise<ServeInfo> {
  const r = await kv(client, START_SCRIPT, [binPath(s, version), s.workspace, s.slug, token], 90_000);
  if (r.get("error")) throw fail("serve_start_failed", `remote serve did not start: ${r.get("error")}`);
  if (r.get("died") || r.get("timeout") || !r.get("addr")) {
    const log = r.get("log") ?? "";
    throw fail(
      "serve_start_failed",
      `remote serve ${r.get("died") ? "exited during startup" : "did not write its port file within 60 s"}${log ? `; last log lines:\n${log}` : ""}`,
      `full log: ${s.home}/.reasonix/remote/serve-${s.slug}.log (reasonix remote serve logs NAME)`,
    );
  }
  const addr = parseHostPort(r.get("addr")!);
  const pid = Number(r.get("pid"));
  const check = await checkServe(client, addr, token, version);
  if (!check.ok) {
    await stopServe(client, s.slug, pid).catch(() => {});
    throw fail("serve_unhealthy", `remote serve started but is not usable: ${check.why}`);
  }
  const info: ServeInfo = { pid, addr, token, version, workspace: s.workspace, slug: s.slug, startedAt: new Date().toISOString(), reused: false };
  const json = JSON.stringify({ pid, addr: `${addr.host}:${addr.port}`, workspace: s.workspace, version, started_at: info.startedAt });
  const pub = await kv(client, PUBLISH_SCRIPT, [s.slug, json]);
  if (!pub.get("published")) throw fail("serve_publish_failed", `could not write serve-${s.slug}.json on the remote: ${pub.get("stderr") ?? ""}`);
  return info;
}

/**
 * Find or start the serve. The first look is lock-free (the common case: a
 * live serve to reuse); everything that changes remote state runs under the lock.
 */
/**
 * Run the lock keeper (HOLD_SCRIPT) on its own channel: its pid ties the lock to this
 * SSH session, and it relays our progress to clients waiting for the lock.
 */
export async function holdLock(client: Client, slug: string, lockId: string): Promise<{ progress(line: string): void; end(): void }> {
  const none = { progress: () => {}, end: () => {} };
  let ch: import("ssh2").ClientChannel;
  try {
    ch = await execChannel(client, REMOTE_SH);
  } catch {
    return none; // no extra channel: the stamp's 60 s rule still frees the lock
  }
  const held = await new Promise<boolean>((resolve) => {
    let out = "";
    const t = setTimeout(() => resolve(false), 15_000);
    ch.on("data", (d: Buffer) => {
      out += d.toString();
      if (/^held=1$/m.test(out)) {
        clearTimeout(t);
        resolve(true);
      } else if (/^not_owner=1$/m.test(out)) {
        clearTimeout(t);
        resolve(false);
      }
    });
    ch.on("close", () => {
      clearTimeout(t);
      resolve(false);
    });
    ch.write(`set -- ${[slug, lockId].map(shQuote).join(" ")}\n${HOLD_SCRIPT}\n`);
  });
  if (!held) {
    ch.close();
    return none;
  }
  let last = 0;
  let pending: string | null = null;
  return {
    progress(line: string) {
      const now = Date.now();
      pending = line;
      if (now - last < 500) return;
      last = now;
      ch.write(`${pending}\n`);
      pending = null;
    },
    end() {
      ch.end();
    },
  };
}

export async function ensureServe(client: Client, o: BootstrapOptions = {}): Promise<ServeInfo> {
  const version = o.version ?? buildInfo().version;
  const workspace = o.workspace ?? "~";
  const first = await readRemoteState(client, workspace, version);
  if (!first.platform) {
    throw fail("unsupported_platform", `unsupported remote platform: ${first.os} ${first.arch}`, "reasonix runs on Linux and macOS, x86_64 and arm64");
  }
  const reused = o.restart ? null : await tryReuse(client, first, version);
  if (reused) return reused;

  const lockId = `${process.pid}-${randomBytes(6).toString("hex")}`;
  const s = await readRemoteState(client, workspace, version, lockId, { onEvent: o.onEvent });
  const holder = await holdLock(client, s.slug, lockId);
  const report = o.onEvent;
  const onEvent = (e: BootstrapEvent) => {
    if (e.event === "installing") holder.progress(`${e.phase} ${e.done} ${e.total}`);
    report?.(e);
  };
  o = { ...o, onEvent };
  // Installs can outlast the 60 s staleness window: keep our stamp fresh meanwhile.
  const keeper = setInterval(() => {
    runScript(client, LOCK_SCRIPT, { args: [s.slug, lockId, "refresh"], timeoutMs: 15_000 }).catch(() => {});
  }, 20_000);
  try {
    // Someone else may have finished a launch while we waited for the lock.
    const again = o.restart ? null : await tryReuse(client, s, version);
    if (again) return again;
    if (isOurServe(s) && s.pid) {
      o.onEvent?.({ event: "stopping_old", pid: s.pid, version: s.json?.version ?? "unknown" });
      await stopServe(client, s.slug, s.pid);
    }
    if (!s.haveBin) await install(client, s, version, o);
    o.onEvent?.({ event: "starting" });
    // Keep the token of the serve this replaces: open tabs and the printed URL stay valid.
    const token = !o.newToken && s.token && /^[0-9a-f]{64}$/.test(s.token) ? s.token : randomBytes(32).toString("hex");
    return await startServe(client, s, version, token);
  } finally {
    clearInterval(keeper);
    await runScript(client, LOCK_SCRIPT, { args: [s.slug, lockId, "release"], timeoutMs: 15_000 }).catch(() => {});
    holder.end();
  }
}
