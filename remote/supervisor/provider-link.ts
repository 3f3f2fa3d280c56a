/**
 * `credentials = "local-proxy"`: the provider keys stay on this machine. A
 * provider proxy (core/providers/proxy.ts) runs on local loopback for the
 * whole `remote connect`; every connection forwards a port on the remote's
 * loopback to it (ssh -R) and keeps the remote's manifest file
 * (~/.reasonix/remote/provider-proxy.json, 0600: URL, secret, entries without
 * keys) in step. The remote serve reads that file at start (the launch script
 * names it in $REASONIX_PROVIDER_PROXY_FILE).
 *
 * The remote port lives as long as that file: a serve that keeps running across
 * reconnects keeps a working URL, so on reconnect the same remote port is asked
 * for again: the supervisor first ends our own dead session that sshd may still
 * keep (stale-session.ts), and whoever else holds the port is waited out in the
 * background. The secret is new for every connection that holds the forward: the
 * serve re-reads it from the file (proxySecretReader) on its next request.
 */
import { randomBytes } from "node:crypto";
import type { Client } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";
import { manifestEntries, parseProxyManifest, startProviderProxy, type ProviderProxy, type ProxyManifest } from "../../core/providers/proxy.ts";
import type { ProviderDeps } from "../../core/providers/registry.ts";
import type { ProviderConfig } from "../../core/providers/types.ts";
import { RemoteForward } from "../forwards/remote-forward.ts";
import { runScript } from "../ssh/exec.ts";

export const REMOTE_MANIFEST = "provider-proxy.json";

const READ_SCRIPT = `umask 077
F="$HOME/.reasonix/remote/${REMOTE_MANIFEST}"
[ -f "$F" ] && cat "$F"
exit 0`;

/** Args: JSON (the manifest, via "$@" set on stdin: never argv of any process). */
const WRITE_SCRIPT = `umask 077
D="$HOME/.reasonix/remote"; F="$D/${REMOTE_MANIFEST}"
mkdir -p "$D" && printf '%s\\n' "$1" > "$F.$$.tmp" && chmod 600 "$F.$$.tmp" && mv -f "$F.$$.tmp" "$F" && echo written=1`;

const REMOVE_SCRIPT = `rm -f "$HOME/.reasonix/remote/${REMOTE_MANIFEST}"; echo removed=1`;

/** A host that keeps its keys on the remote: no manifest may make its serve use a proxy that is not there. */
export async function removeRemoteManifest(client: Client): Promise<void> {
  await runScript(client, REMOVE_SCRIPT, { timeoutMs: 15_000 });
}

export interface ProviderLinkOptions {
  entries: ProviderConfig[];
  deps: ProviderDeps;
  defaultModel?: string;
}

export class ProviderLink {
  private proxy: ProviderProxy | null = null;
  private forward: RemoteForward | null = null;
  remotePort = 0;

  constructor(private readonly o: ProviderLinkOptions) {
    if (o.entries.length === 0) {
      throw new ReasonixError("config", "credentials = \"local-proxy\" needs at least one local [[providers]] entry", { hint: "add one with `reasonix setup`" });
    }
  }

  get localPort(): number {
    return this.proxy?.port ?? 0;
  }

  get secret(): string {
    return this.proxy?.secret ?? "";
  }

  start(): void {
    this.proxy ??= startProviderProxy({ entries: this.o.entries, deps: this.o.deps });
  }

  /**
   * On a fresh connection: read the remote manifest, forward its port again (or a
   * new one), adopt its secret, and (re)write it when anything changed. Returns a
   * promise for a background retry when the old port is still held; the forward
   * then comes back by itself.
   */
  async attach(client: Client): Promise<{ port: number; retry?: Promise<boolean>; changed: boolean }> {
    this.start();
    const proxy = this.proxy!;
    const prev = await this.readRemote(client);
    // Until this connection holds the forward, whoever holds it (an earlier connect of
    // ours still alive) keeps its secret; it is rotated once the forward is ours.
    if (prev) proxy.setSecret(prev.secret);
    const want = prev ? Number(new URL(prev.url).port) : this.remotePort;
    const target = { host: "127.0.0.1", port: proxy.port };
    let port = 0;
    let retry: Promise<boolean> | undefined;
    if (want > 0) {
      this.forward = new RemoteForward({ type: "remote", bind: { host: "127.0.0.1", port: want }, target });
      try {
        port = await this.forward.attach(client);
      } catch {
        // Usually our own previous session, still registered until sshd notices it is dead.
        port = want;
        const f = this.forward;
        retry = this.retry(client, f).then(async (ok) => {
          if (ok && this.forward === f) await this.publish(client, port).catch(() => {});
          return ok;
        });
      }
    } else {
      this.forward = new RemoteForward({ type: "remote", bind: { host: "127.0.0.1", port: 0 }, target });
      port = await this.forward.attach(client);
    }
    this.remotePort = port;
    const manifest = retry ? null : await this.publish(client, port);
    // What a running serve read at its start: anything but the secret.
    const fixed = (m: ProxyManifest | null) => (m ? JSON.stringify({ ...m, secret: "" }) : "");
    const changed = !prev || (manifest !== null && fixed(prev) !== fixed(manifest));
    return { port, retry, changed };
  }

  /** A fresh secret for this connection: the proxy takes it, then the remote file (0600). */
  private async publish(client: Client, port: number): Promise<ProxyManifest> {
    const manifest: ProxyManifest = {
      url: `http://127.0.0.1:${port}`,
      secret: randomBytes(32).toString("hex"),
      ...(this.o.defaultModel ? { default_model: this.o.defaultModel } : {}),
      providers: manifestEntries(this.o.entries),
    };
    this.proxy!.setSecret(manifest.secret);
    await this.writeRemote(client, manifest);
    return manifest;
  }

  private async retry(client: Client, f: RemoteForward): Promise<boolean> {
    let alive = true;
    client.once("close", () => (alive = false));
    for (let i = 0; i < 150 && alive && this.forward === f; i++) {
      await new Promise((r) => setTimeout(r, 2000));
      if (!alive || this.forward !== f) return false;
      try {
        await f.attach(client);
        return true;
      } catch {}
    }
    return false;
  }

  private async readRemote(client: Client): Promise<ProxyManifest | null> {
    const r = await runScript(client, READ_SCRIPT, { timeoutMs: 15_000 });
    if (!r.stdout.trim()) return null;
    try {
      return parseProxyManifest(r.stdout);
    } catch {
      return null; // unreadable: replaced below
    }
  }

  private async writeRemote(client: Client, m: ProxyManifest): Promise<void> {
    const r = await runScript(client, WRITE_SCRIPT, { args: [JSON.stringify(m)], timeoutMs: 15_000 });
    if (!r.stdout.includes("written=1")) {
      throw new ReasonixError("remote_state", `could not write ~/.reasonix/remote/${REMOTE_MANIFEST} on the remote: ${r.stderr.trim() || `exit ${r.code}`}`);
    }
  }

  detach(): void {
    this.forward?.detach();
    this.forward = null;
  }

  async stop(): Promise<void> {
    this.detach();
    await this.proxy?.stop();
    this.proxy = null;
  }
}
