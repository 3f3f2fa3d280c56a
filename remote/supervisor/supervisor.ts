/**
 * The foreground supervisor behind `reasonix remote connect`: bind the local
 * tunnel and -L listeners, dial, make sure the remote serve runs, attach the
 * tunnel and every forward, and when the link drops, reconnect with backoff
 * and attach them again. Host-key and authentication failures end the loop.
 * Stopping only ends the local side; the remote serve keeps running.
 */
import { randomBytes } from "node:crypto";
import { ReasonixError, errorMessage } from "../../core/errors.ts";
import { buildInfo } from "../../core/version.ts";
import { checkServe, ensureServe, isStillOurServe, type ServeInfo } from "../bootstrap/bootstrap.ts";
import { RemoteForward } from "../forwards/remote-forward.ts";
import { describeForward, type Forward } from "../forwards/spec.ts";
import type { SshConnection } from "../ssh/connect.ts";
import { SshError, describeNetError, isTerminalSshError } from "../ssh/errors.ts";
import { LocalListener } from "../tunnel/local-listener.ts";
import { linkDownResponse } from "../tunnel/down-page.ts";
import { nudgeNoDelay } from "../tunnel/nodelay.ts";
import { runScript } from "../ssh/exec.ts";
import { LOGS_TAIL_SCRIPT } from "../bootstrap/scripts.ts";
import { HealthWatch, LossWindow, serveHealthOnce } from "./serve-health.ts";
import { replaceStaleSession, type SessionId } from "./stale-session.ts";
import { sweepOrphanedParts } from "../fs/sftp.ts";
import { DEFAULT_BACKOFF, backoffDelay, sleepUnlessWoken, type BackoffPolicy } from "./backoff.ts";
import { removeRemoteManifest } from "./provider-link.ts";
import type { SupervisorEvent, SupervisorOptions } from "./supervisor-types.ts";

export type { SupervisorEvent, SupervisorOptions } from "./supervisor-types.ts";

// Errors that mean "the network", as opposed to "this cannot work".
const NETWORK_CODES = /ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ETIMEDOUT|ECONNRESET|EPIPE|timed out|Keepalive|closed|Not connected|No response|no route|unreachable|refused|reset|network is down|no reply/i;

export class Supervisor {
  private readonly abort = new AbortController();
  private conn: SshConnection | null = null;
  private tunnel: LocalListener;
  private readonly locals: { f: Forward; l: LocalListener }[] = [];
  private readonly remotes: RemoteForward[] = [];
  private serve: ServeInfo | null = null;
  private readonly losses = new LossWindow(3, 60_000);
  private readonly policy: BackoffPolicy;
  private readonly version: string;
  /** One remote lock id for this supervisor's life: after a lost link it takes its own lock back. */
  private readonly lockId = `${process.pid}-${randomBytes(6).toString("hex")}`;
  /** The sshd process of our last connection that carried -R forwards (stale-session.ts). */
  private session: SessionId | null = null;
  /** When the lost link last sent bytes: outages are told from here, not from when we noticed. */
  private downSince = 0;
  url = "";

  constructor(private readonly o: SupervisorOptions) {
    this.policy = { ...DEFAULT_BACKOFF, ...o.backoff };
    this.version = o.bootstrap.version ?? buildInfo().version;
    this.tunnel = new LocalListener({ host: "127.0.0.1", port: o.localPort ?? 0 }, "the serve tunnel", () =>
      linkDownResponse(
        this.conn
          ? { host: o.host, lastRxAt: this.conn.liveness.lastRxAt(), starting: !this.conn.liveness.suspect() }
          : { host: o.host, lastRxAt: this.downSince || Date.now(), reason: this.lastReason || undefined },
      ),
    );
    for (const f of o.forwards ?? []) {
      if (f.type === "local") this.locals.push({ f, l: new LocalListener(f.bind, describeForward(f)) });
      else this.remotes.push(new RemoteForward(f));
    }
  }

  get localPort(): number {
    return this.tunnel.boundPort;
  }

  get servePid(): number | undefined {
    return this.serve?.pid;
  }

  /** End the local side only. `run()` then resolves with 0. */
  stop(): void {
    this.abort.abort();
    this.conn?.close();
  }

  private emit(e: SupervisorEvent): void {
    try {
      this.o.onEvent(e);
    } catch {}
  }

  private emitError(e: unknown, terminal: boolean): void {
    const re = e instanceof ReasonixError ? e : null;
    this.emit({ event: "error", code: re?.code ?? "error", message: errorMessage(e), hint: re?.hint, terminal });
  }

  /** Runs until stopped (0) or a terminal error (its exit code). */
  async run(): Promise<number> {
    try {
      this.o.providerLink?.start();
      await this.tunnel.listen();
      for (const { f, l } of this.locals) {
        await l.listen();
        this.emit({ event: "forward", spec: describeForward(f), status: "bound" });
      }
    } catch (e) {
      this.emitError(e, true);
      await this.closeListeners();
      return e instanceof ReasonixError ? e.exitCode : 1;
    }
    try {
      return await this.loop();
    } finally {
      await this.closeListeners();
    }
  }

  private async closeListeners(): Promise<void> {
    await this.tunnel.close();
    for (const { l } of this.locals) await l.close();
    for (const r of this.remotes) r.detach();
    await this.o.providerLink?.stop();
  }

  private async loop(): Promise<number> {
    const signal = this.abort.signal;
    let attempt = 0;
    let everReady = false;
    // Once a connection was made (host, key and login are right), a lost link is an
    // outage to wait out, also before the first `ready` (e.g. mid-install).
    let everConnected = false;
    let networkish = false;
    const initialAttempts = this.o.initialAttempts ?? 3;
    while (!signal.aborted) {
      if (attempt > 0) {
        const delay = backoffDelay(attempt, this.policy);
        this.emit({ event: "reconnecting", attempt, delay_ms: delay, reason: this.lastReason });
        const r = await sleepUnlessWoken(delay, { signal, wake: networkish ? this.o.probe : undefined, pollMs: 200 });
        if (r === "aborted") break;
        // After a network failure, only start an SSH handshake once TCP gets through: a dial
        // into a black hole would sit in SYN retries and miss the moment the link returns.
        if (r === "elapsed" && networkish && everConnected && this.o.probe && !(await this.o.probe().catch(() => false))) {
          this.lastReason = "host still unreachable";
          attempt++;
          continue;
        }
      }
      this.emit({ event: "connecting", host: this.o.host, attempt });
      const t0 = performance.now();
      let conn: SshConnection;
      try {
        conn = await this.o.dial();
      } catch (e) {
        if (signal.aborted) break;
        if (isTerminalSshError(e) || (!everConnected && attempt + 1 >= initialAttempts)) {
          this.emitError(e, true);
          return e instanceof ReasonixError ? e.exitCode : 1;
        }
        networkish = NETWORK_CODES.test(errorMessage(e));
        this.lastReason = errorMessage(e);
        this.emitError(e, false);
        attempt++;
        continue;
      }
      if (signal.aborted) {
        conn.close();
        break;
      }
      this.conn = conn;
      everConnected = true;
      this.emit({ event: "connected", host: this.o.host, ms: Math.round(performance.now() - t0) });
      let dropped = false;
      let linkError: Error | null = null;
      // ssh2 reports why a link died (keepalive timeout, reset) as an 'error' just before 'close'.
      conn.client.on("error", (e: Error) => (linkError = e));
      const closed = new Promise<void>((resolve) =>
        conn.client.once("close", () => {
          dropped = true;
          resolve();
        }),
      );
      const upAt = Date.now();
      try {
        await this.attach(conn, everReady, t0);
        everReady = true;
      } catch (e) {
        if (signal.aborted) break;
        if (!dropped && !(e instanceof SshError && !e.terminal)) {
          // The link is fine, so retrying cannot help (unsupported platform, install refused…).
          this.emitError(e, true);
          conn.close();
          return e instanceof ReasonixError ? e.exitCode : 1;
        }
        this.downSince = conn.liveness.lastRxAt();
        // The link went (mid-install, say): name the link, as after `ready`, not what it broke.
        const le = linkError as Error | null;
        this.lastReason = le ? describeNetError(le) : errorMessage(e);
        conn.close();
        this.conn = null;
        this.detachAll();
        networkish = true;
        this.emit({ event: "disconnected", reason: this.lastReason, silent_ms: Date.now() - this.downSince });
        attempt++;
        continue;
      }
      const fatal = await this.watchServe(conn, closed);
      if (fatal && !signal.aborted) {
        this.emitError(fatal, true);
        conn.close();
        this.detachAll();
        return fatal instanceof ReasonixError ? fatal.exitCode : 1;
      }
      await closed;
      this.downSince = conn.liveness.lastRxAt();
      this.lastReason = linkError ? describeNetError(linkError) : "connection closed by the remote end";
      this.conn = null;
      this.detachAll();
      if (signal.aborted) break;
      this.emit({ event: "disconnected", reason: this.lastReason, silent_ms: Date.now() - this.downSince });
      networkish = true;
      attempt = Date.now() - upAt >= this.policy.stableMs ? 1 : attempt + 1;
    }
    return 0;
  }

  private lastReason = "";

  /**
   * While the connection lives: watch the serve, and when it is lost restart it under
   * the lock (same token, same local port, so the URL stays valid). Resolves null when
   * the connection closes, or with the error that must end the supervisor (crash loop,
   * workspace deleted).
   */
  private async watchServe(conn: SshConnection, closed: Promise<void>): Promise<unknown | null> {
    const signal = this.abort.signal;
    let alive = true;
    const watch = new HealthWatch(() => (this.serve ? serveHealthOnce(conn.client, this.serve.addr) : Promise.resolve(null)), { intervalMs: this.o.healthIntervalMs ?? 10_000 });
    void closed.then(() => {
      alive = false;
      watch.stop();
    });
    const onAbort = () => watch.stop();
    signal.addEventListener("abort", onAbort, { once: true });
    // A refused tunnel connection is the first sign of a dead serve: check at once.
    this.tunnel.onOpenFailed = () => watch.kick();
    try {
      while (alive && !signal.aborted) {
        const reason = await watch.nextFailure();
        if (reason === null || !alive || signal.aborted) return null;
        // A timeout may be the link, not the serve: only a link that still carries a
        // command proves the serve itself stopped answering (keepalive handles the rest).
        if (reason.startsWith("timeout") && !(await runScript(conn.client, "echo ok", { timeoutMs: 5000 }).then((r) => r.stdout.includes("ok"), () => false))) continue;
        const prev = this.serve!;
        this.emit({ event: "serve_lost", pid: prev.pid, reason });
        void this.reportDeath(conn, prev, reason);
        if (this.losses.lost()) {
          const tail = await runScript(conn.client, LOGS_TAIL_SCRIPT, { args: [prev.slug, "20"], timeoutMs: 15_000 }).then((r) => r.stdout.trimEnd(), () => "");
          return new ReasonixError("serve_crash_loop", `the remote serve keeps dying (lost 3 times within 60 s); not restarting it again${tail ? `\nlast lines of its log:\n${tail}` : ""}`, {
            hint: `reasonix remote serve logs ${this.o.host}`,
          });
        }
        const t0 = performance.now();
        try {
          const serve = await ensureServe(conn.client, { ...this.o.bootstrap, version: this.version, lockId: this.lockId, onEvent: (e) => this.emit(e) });
          if (!alive || signal.aborted) return null;
          this.serve = serve;
          this.o.cache?.put(this.o.host, this.o.bootstrap.workspace ?? "~", serve);
          this.tunnel.attach(conn.client, serve.addr, conn.liveness);
          this.url = `http://127.0.0.1:${this.tunnel.boundPort}/#token=${serve.token}`;
          this.emit({ event: "serve_restarted", pid: serve.pid, previous_pid: prev.pid, url: this.url, ms: Math.round(performance.now() - t0) });
        } catch (e) {
          if (!alive || signal.aborted) return null;
          if (e instanceof ReasonixError && e.code === "remote_workspace_missing") return e;
          // Could not start it now (or the link failed meanwhile): say so and keep watching;
          // the next failed check counts towards the crash-loop limit.
          this.emitError(e, false);
        }
      }
      return null;
    } finally {
      this.tunnel.onOpenFailed = null;
      signal.removeEventListener("abort", onAbort);
      watch.stop();
    }
  }

  /** Hand the front end what it needs for a crash report: why, and the last lines of the serve's log. */
  private async reportDeath(conn: SshConnection, prev: ServeInfo, reason: string): Promise<void> {
    if (!this.o.onServeDied) return;
    const log = await runScript(conn.client, LOGS_TAIL_SCRIPT, { args: [prev.slug, "40"], timeoutMs: 15_000 }).then((r) => r.stdout, () => "");
    try { this.o.onServeDied({ pid: prev.pid, reason, log }); } catch {}
  }

  private detachAll(): void {
    this.tunnel.detach();
    for (const { l } of this.locals) l.detach();
    for (const r of this.remotes) r.detach();
    this.o.providerLink?.detach();
  }

  private async retryRemote(r: RemoteForward, conn: SshConnection): Promise<void> {
    let alive = true;
    conn.client.once("close", () => (alive = false));
    for (let i = 0; i < 150 && alive && !this.abort.signal.aborted; i++) {
      await sleepUnlessWoken(2000, { signal: this.abort.signal });
      if (!alive || this.abort.signal.aborted || this.conn !== conn) return;
      try {
        await r.attach(conn.client);
        this.emit({ event: "forward", spec: describeForward(r.forward), status: "attached" });
        return;
      } catch {}
    }
  }

  /** Resolves true when the remote manifest was (re)written: a serve already running has not read it. */
  private async attachProviderLink(conn: SshConnection): Promise<boolean> {
    const link = this.o.providerLink!;
    const r = await link.attach(conn.client);
    const spec = `provider proxy: remote 127.0.0.1:${r.port} -> local 127.0.0.1:${link.localPort}`;
    if (!r.retry) {
      this.emit({ event: "forward", spec, status: "attached" });
      return r.changed;
    }
    this.emit({ event: "forward", spec, status: "failed", message: "the remote port is still held (usually by the previous, dead session); retrying" });
    void r.retry.then((ok) => ok && this.conn === conn && this.emit({ event: "forward", spec, status: "attached" }));
    return r.changed;
  }

  /** Make the serve available on this connection and hang every listener on it. */
  private async attach(conn: SshConnection, reconnect: boolean, t0: number): Promise<void> {
    const client = conn.client;
    await nudgeNoDelay(client);
    // Temp files of `remote fs` transfers that died with their connection go now.
    void sweepOrphanedParts(client, this.o.host).catch(() => {});
    const ws = this.o.bootstrap.workspace ?? "~";
    // Our previous session may still hold the -R ports on the server: end it first.
    if (this.o.providerLink || this.remotes.length > 0) {
      this.session = (await replaceStaleSession(client, this.session).catch(() => null))?.session ?? this.session;
    }
    // Before any serve starts: it reads the provider manifest once, at start.
    const manifestChanged = this.o.providerLink ? await this.attachProviderLink(conn) : false;
    let serve: ServeInfo | null = null;
    let via: "known" | "remote" | "started" = "known";
    const known = this.serve ?? this.o.cache?.get(this.o.host, ws) ?? null;
    // The serve may have died since and its port been taken by someone else's process:
    // confirm on the remote that it is still ours before the token goes anywhere.
    if (known && known.version === this.version && (await isStillOurServe(client, known))) {
      const check = await checkServe(client, known.addr, known.token, this.version);
      if (check.ok && (!check.workspace || check.workspace === known.workspace)) serve = { ...known, reused: true };
    }
    if (!serve) {
      // Keys stay on the remote for this host: a manifest left from an earlier
      // local-proxy setup must not send a new serve to a proxy that is not there.
      if (!this.o.providerLink) await removeRemoteManifest(client).catch(() => {});
      serve = await ensureServe(client, { ...this.o.bootstrap, version: this.version, lockId: this.lockId, onEvent: (e) => this.emit(e) });
      via = serve.reused ? "remote" : "started";
      this.o.cache?.put(this.o.host, ws, serve);
    }
    this.serve = serve;
    if (manifestChanged && serve.reused) {
      // It read its providers at start: until restarted it uses its own keys, or a stale proxy URL.
      this.emit({
        event: "error",
        code: "provider_manifest_stale",
        message: `the remote serve (pid ${serve.pid}) started before the provider manifest was written: it does not use this machine's keys until it restarts`,
        hint: `reasonix remote serve restart ${this.o.host}`,
        terminal: false,
      });
    }
    this.tunnel.attach(client, serve.addr, conn.liveness);
    for (const { f, l } of this.locals) {
      l.attach(client, f.target);
      this.emit({ event: "forward", spec: describeForward(f), status: "attached" });
    }
    for (const r of this.remotes) {
      try {
        await r.attach(client);
        this.emit({ event: "forward", spec: describeForward(r.forward), status: "attached" });
      } catch (e) {
        // One refused -R must not take the session down. Our own stale session was ended
        // above; someone else (another client, a session we could not identify) may hold the
        // port for a while, so keep asking in the background while this connection lives.
        this.emit({ event: "forward", spec: describeForward(r.forward), status: "failed", message: errorMessage(e) });
        void this.retryRemote(r, conn);
      }
    }
    this.url = `http://127.0.0.1:${this.tunnel.boundPort}/#token=${serve.token}`;
    this.emit({
      event: "ready",
      url: this.url,
      local_port: this.tunnel.boundPort,
      pid: serve.pid,
      remote_addr: `${serve.addr.host}:${serve.addr.port}`,
      workspace: serve.workspace,
      version: serve.version,
      reused: serve.reused,
      via,
      reconnect,
      ms: Math.round(performance.now() - t0),
      ...(reconnect && this.downSince ? { outage_ms: Date.now() - this.downSince } : {}),
    });
  }
}
