/**
 * The foreground supervisor behind `reasonix remote connect`: bind the local
 * tunnel and -L listeners, dial, make sure the remote serve runs, attach the
 * tunnel and every forward, and when the link drops, reconnect with backoff
 * and attach them again. Host-key and authentication failures end the loop.
 * Stopping only ends the local side; the remote serve keeps running.
 */
import { ReasonixError, errorMessage } from "../../core/errors.ts";
import { buildInfo } from "../../core/version.ts";
import { checkServe, ensureServe, isStillOurServe, type BootstrapEvent, type BootstrapOptions, type ServeInfo } from "../bootstrap/bootstrap.ts";
import { RemoteForward } from "../forwards/remote-forward.ts";
import { describeForward, type Forward } from "../forwards/spec.ts";
import type { SshConnection } from "../ssh/connect.ts";
import { SshError, isTerminalSshError } from "../ssh/errors.ts";
import { LocalListener } from "../tunnel/local-listener.ts";
import { nudgeNoDelay } from "../tunnel/nodelay.ts";
import { DEFAULT_BACKOFF, backoffDelay, sleepUnlessWoken, type BackoffPolicy } from "./backoff.ts";
import type { ServeCache } from "./serve-cache.ts";

export type SupervisorEvent =
  | { event: "connecting"; host: string; attempt: number }
  | { event: "connected"; host: string; ms: number }
  | BootstrapEvent
  | {
      event: "ready";
      url: string;
      local_port: number;
      pid: number;
      remote_addr: string;
      workspace: string;
      version: string;
      reused: boolean;
      /** How the serve was found: checked from what we knew, from the remote's records, or freshly started. */
      via: "known" | "remote" | "started";
      reconnect: boolean;
      ms: number;
    }
  | { event: "forward"; spec: string; status: "bound" | "attached" | "failed"; message?: string }
  | { event: "disconnected"; reason: string }
  | { event: "reconnecting"; attempt: number; delay_ms: number; reason: string }
  | { event: "error"; code: string; message: string; hint?: string; terminal: boolean };

export interface SupervisorOptions {
  host: string;
  /** Open one SSH connection (jumps included); throws SshError. */
  dial: () => Promise<SshConnection>;
  bootstrap: BootstrapOptions;
  localPort?: number;
  forwards?: Forward[];
  onEvent: (e: SupervisorEvent) => void;
  backoff?: Partial<BackoffPolicy>;
  /** Cheap reachability check used to cut a backoff wait short once the network is back. */
  probe?: () => Promise<boolean>;
  cache?: ServeCache | null;
  /** Give up when the very first connection cannot be made this many times (default 3). */
  initialAttempts?: number;
}

// Errors that mean "the network", as opposed to "this cannot work".
const NETWORK_CODES = /ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ETIMEDOUT|ECONNRESET|EPIPE|timed out|Keepalive|closed|Not connected|No response/i;

export class Supervisor {
  private readonly abort = new AbortController();
  private conn: SshConnection | null = null;
  private tunnel: LocalListener;
  private readonly locals: { f: Forward; l: LocalListener }[] = [];
  private readonly remotes: RemoteForward[] = [];
  private serve: ServeInfo | null = null;
  private readonly policy: BackoffPolicy;
  private readonly version: string;
  url = "";

  constructor(private readonly o: SupervisorOptions) {
    this.policy = { ...DEFAULT_BACKOFF, ...o.backoff };
    this.version = o.bootstrap.version ?? buildInfo().version;
    this.tunnel = new LocalListener({ host: "127.0.0.1", port: o.localPort ?? 0 }, "the serve tunnel");
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
  }

  private async loop(): Promise<number> {
    const signal = this.abort.signal;
    let attempt = 0;
    let everReady = false;
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
        if (r === "elapsed" && networkish && everReady && this.o.probe && !(await this.o.probe().catch(() => false))) {
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
        if (isTerminalSshError(e) || (!everReady && attempt + 1 >= initialAttempts)) {
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
        conn.close();
        this.detachAll();
        networkish = true;
        this.lastReason = errorMessage(e);
        attempt++;
        continue;
      }
      await closed;
      this.detachAll();
      this.conn = null;
      if (signal.aborted) break;
      this.lastReason = (linkError as Error | null)?.message ?? "connection closed";
      this.emit({ event: "disconnected", reason: this.lastReason });
      networkish = true;
      attempt = Date.now() - upAt >= this.policy.stableMs ? 1 : attempt + 1;
    }
    return 0;
  }

  private lastReason = "";

  private detachAll(): void {
    this.tunnel.detach();
    for (const { l } of this.locals) l.detach();
    for (const r of this.remotes) r.detach();
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

  /** Make the serve available on this connection and hang every listener on it. */
  private async attach(conn: SshConnection, reconnect: boolean, t0: number): Promise<void> {
    const client = conn.client;
    await nudgeNoDelay(client);
    const ws = this.o.bootstrap.workspace ?? "~";
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
      serve = await ensureServe(client, { ...this.o.bootstrap, version: this.version, onEvent: (e) => this.emit(e) });
      via = serve.reused ? "remote" : "started";
      this.o.cache?.put(this.o.host, ws, serve);
    }
    this.serve = serve;
    this.tunnel.attach(client, serve.addr);
    for (const { f, l } of this.locals) {
      l.attach(client, f.target);
      this.emit({ event: "forward", spec: describeForward(f), status: "attached" });
    }
    for (const r of this.remotes) {
      try {
        await r.attach(client);
        this.emit({ event: "forward", spec: describeForward(r.forward), status: "attached" });
      } catch (e) {
        // One refused -R must not take the session down. Right after a reconnect the port is
        // often still held by our own stale session on the server (until sshd's ClientAlive
        // check drops it), so keep asking in the background while this connection lives.
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
    });
  }
}
