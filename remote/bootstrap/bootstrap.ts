/**
 * Make sure a version-matched `reasonix serve` runs on the remote for a
 * workspace, and return how to reach it. Reuses a live one; replaces one of
 * another version; installs the binary when missing; serialises concurrent
 * clients with a remote mkdir lock so two connects give one launch.
 */
import { randomBytes } from "node:crypto";
import type { Client } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";
import { buildInfo } from "../../core/version.ts";
import { normalisePlatform } from "../hosts/probe.ts";
import { runScript } from "../ssh/exec.ts";
import { httpViaSsh, parseHostPort, type HostPort } from "../tunnel/http.ts";
import { prefetchSha } from "./artifact.ts";
import { binPath, install, kv, uploadCacheDir, type Placement } from "./install.ts";
import { holdLock, isLockLost, lockLost, lockStaleSeconds, type Fence } from "./lock.ts";
import { LOCK_SCRIPT, START_SCRIPT, STATE_SCRIPT, STOP_SCRIPT, VERIFY_SCRIPT, parseKv } from "./scripts.ts";
import type { BootstrapEvent, BootstrapOptions, RemoteState, ServeInfo } from "./types.ts";

export type { BootstrapEvent, BootstrapOptions, InstallSource, RemoteState, ServeInfo } from "./types.ts";
export { holdLock } from "./lock.ts";

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
  opts: { allowMissing?: boolean; onEvent?: (e: BootstrapEvent) => void; /** With lockId: lock only when this version's binary is missing. */ onlyIfCold?: boolean } = {},
): Promise<RemoteState> {
  const onLine = (line: string) => {
    if (!line.startsWith("waiting=")) return;
    const [holder = "", progress = ""] = line.slice(8).split("|");
    const [phase, done, total] = progress.trim().split(/\s+/);
    opts.onEvent?.({ event: "waiting_for_lock", holder, ...(phase ? { phase, done: Number(done) || 0, total: Number(total) || 0 } : {}) });
  };
  const res = await runScript(client, STATE_SCRIPT, { args: [workspace, version, lockId ? (opts.onlyIfCold ? "lockcold" : "lock") : "nolock", lockId ?? "", String(lockStaleSeconds())], timeoutMs: 180_000, onLine });
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

/** The serve answers with the expected version and accepts our token. */
export async function checkServe(client: Client, addr: HostPort, token: string, version: string): Promise<{ ok: boolean; why?: string; workspace?: string }> {
  try {
    // Both asked at once (one round trip): the token goes only to the address the remote
    // itself recorded for our serve, which every caller has checked before.
    const [health, st] = await Promise.all([
      httpViaSsh(client, addr, "/healthz", { timeoutMs: 10_000 }),
      httpViaSsh(client, addr, "/api/status", { headers: { authorization: `Bearer ${token}` }, timeoutMs: 10_000 }),
    ]);
    if (health.status !== 200) return { ok: false, why: `/healthz answered ${health.status}` };
    const h = JSON.parse(health.body) as { version?: string };
    if (h.version !== version) return { ok: false, why: `serve reports version ${h.version}, expected ${version}` };
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

export async function stopServe(client: Client, slug: string, pid: number, fence?: Fence): Promise<"stopped" | "not_running" | "not_ours"> {
  const r = await kv(client, STOP_SCRIPT, [slug, String(pid), ...(fence ? [fence.lockId] : [])], 30_000);
  if (r.get("lost_lock")) throw lockLost(`stopping serve ${pid}`);
  if (r.get("stopped")) return "stopped";
  if (r.get("not_ours")) return "not_ours";
  if (r.get("was_running") === "0") return "not_running";
  throw fail("stop_failed", `could not stop remote serve ${pid}: ${r.get("error") ?? r.get("stderr") ?? "unknown error"}`);
}

async function startServe(client: Client, s: RemoteState, version: string, token: string, fence: Fence, placement?: Placement): Promise<ServeInfo> {
  const startedAt = new Date().toISOString();
  // The record's fields after pid and addr (which the script fills in): recorded and the lock
  // released in the same fenced run that started the serve.
  const record = JSON.stringify({ workspace: s.workspace, version, started_at: startedAt }).slice(1);
  // An upload still to be put in place: its hash was computed here while it went out.
  const place = placement ? [placement.key, await placement.sha256] : [];
  const r = await kv(client, START_SCRIPT, [binPath(s, version), s.workspace, s.slug, token, fence.lockId, record, ...place], 90_000);
  // With an address, the serve was started and the lock lost before recording it: the new holder adopts it.
  if (r.get("lost_lock")) throw lockLost(r.get("addr") ? "recording the serve it started" : "starting the serve");
  if (r.has("checksum_mismatch")) {
    throw fail("install_failed", `uploading reasonix ${version} failed: checksum mismatch (the remote received bytes hashing to ${r.get("checksum_mismatch")}, expected ${place[1]}); the upload was removed and never run`, "connect again to upload it anew");
  }
  if (r.get("error")) throw fail("serve_start_failed", `remote serve did not start: ${r.get("error")}`);
  if (r.get("adopt")) {
    // A serve for this workspace is already up (its starter held the lock while we were
    // paused): use it, never start a second one.
    const addr = parseHostPort(r.get("addr")!);
    const pid = Number(r.get("pid"));
    const theirs = r.get("token") ?? "";
    const check = await checkServe(client, addr, theirs, version);
    if (!check.ok) throw fail("serve_unhealthy", `remote serve ${pid} is already running for this workspace but is not usable: ${check.why}`, "reasonix remote serve restart NAME");
    return { pid, addr, token: theirs, version, workspace: s.workspace, slug: s.slug, startedAt: s.json?.started_at ?? "", reused: true };
  }
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
  if (r.get("released")) fence.released = true;
  if (!r.get("published")) {
    throw fail("serve_publish_failed", `could not write serve-${s.slug}.json on the remote: ${r.get("stderr") ?? ""}`);
  }
  const check = await checkServe(client, addr, token, version);
  if (!check.ok) {
    await stopServe(client, s.slug, pid).catch(() => {});
    throw fail("serve_unhealthy", `remote serve started but is not usable: ${check.why}`);
  }
  return { pid, addr, token, version, workspace: s.workspace, slug: s.slug, startedAt, reused: false };
}

/**
 * Find or start the serve. The first look is lock-free (the common case: a
 * live serve to reuse); everything that changes remote state runs under the lock.
 * A holder that finds it lost the lock (paused past the staleness window) changes
 * nothing and starts over, which adopts what the new holder made.
 */
export async function ensureServe(client: Client, o: BootstrapOptions = {}): Promise<ServeInfo> {
  for (let tries = 1; ; tries++) {
    try {
      return await ensureServeOnce(client, o);
    } catch (e) {
      if (!isLockLost(e) || tries >= 3) throw e;
    }
  }
}

async function ensureServeOnce(client: Client, o: BootstrapOptions): Promise<ServeInfo> {
  const version = o.version ?? buildInfo().version;
  const workspace = o.workspace ?? "~";
  // A cold install needs the local binary's SHA-256 first: hash it while the remote answers.
  if (o.install !== "npm" && o.install !== "never") prefetchSha({ binaryPath: o.binaryPath, cacheDir: uploadCacheDir(o) });
  // Without this version's binary there is nothing to reuse: the first look takes the lock.
  const lockId = o.lockId ?? `${process.pid}-${randomBytes(6).toString("hex")}`;
  const first = await readRemoteState(client, workspace, version, lockId, { onEvent: o.onEvent, onlyIfCold: true });
  if (!first.platform) {
    if (first.locked) await runScript(client, LOCK_SCRIPT, { args: [first.slug, lockId, "release"], timeoutMs: 15_000 }).catch(() => {});
    throw fail("unsupported_platform", `unsupported remote platform: ${first.os} ${first.arch}`, "reasonix runs on Linux and macOS, x86_64 and arm64");
  }
  const reused = o.restart || first.locked ? null : await tryReuse(client, first, version);
  if (reused) return reused;

  const s = first.locked ? first : await readRemoteState(client, workspace, version, lockId, { onEvent: o.onEvent });
  const fence: Fence = { slug: s.slug, lockId };
  // The keeper starts on its own channel while the work goes on: the lock is ours already
  // (every irreversible step checks the owner file), the keeper only ties it to this session
  // sooner than the stamp's staleness window and relays our progress to waiters.
  const holding = holdLock(client, s.slug, lockId);
  const report = o.onEvent;
  const onEvent = (e: BootstrapEvent) => {
    if (e.event === "installing") void holding.then((h) => h.progress(`${e.phase} ${e.done} ${e.total}`));
    report?.(e);
  };
  o = { ...o, onEvent };
  // Installs can outlast the staleness window: keep our stamp fresh meanwhile.
  const keeper = setInterval(() => {
    runScript(client, LOCK_SCRIPT, { args: [s.slug, lockId, "refresh"], timeoutMs: 15_000 }).catch(() => {});
  }, 20_000);
  try {
    // Someone else may have finished a launch while we waited for the lock.
    const again = o.restart ? null : await tryReuse(client, s, version);
    if (again) return again;
    if (isOurServe(s) && s.pid) {
      o.onEvent?.({ event: "stopping_old", pid: s.pid, version: s.json?.version ?? "unknown" });
      await stopServe(client, s.slug, s.pid, fence);
    }
    const placement = s.haveBin ? undefined : await install(client, s, version, o, fence);
    o.onEvent?.({ event: "starting" });
    // Keep the token of the serve this replaces: open tabs and the printed URL stay valid.
    const token = !o.newToken && s.token && /^[0-9a-f]{64}$/.test(s.token) ? s.token : randomBytes(32).toString("hex");
    return await startServe(client, s, version, token, fence, placement);
  } finally {
    clearInterval(keeper);
    const holder = await holding;
    if (!fence.released) await runScript(client, LOCK_SCRIPT, { args: [s.slug, lockId, "release"], timeoutMs: 15_000 }).catch(() => {});
    holder.end();
  }
}
