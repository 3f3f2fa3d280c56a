import { connectSsh, type ConnectOptions, type SshConnection } from "../ssh/connect.ts";
import { resolveTarget } from "./resolve.ts";
import { getHost, loadRemoteSettings } from "./store.ts";
import type { HostConfig } from "./types.ts";

/**
 * Connect to a configured host (by name or entry): resolve it (ssh -G when
 * use_ssh_config), then dial with the configured keepalive settings.
 */
export async function connectHost(host: string | HostConfig, opts: ConnectOptions = {}): Promise<SshConnection> {
  const settings = loadRemoteSettings();
  const entry = typeof host === "string" ? getHost(host) : host;
  const target = await resolveTarget(entry, { hosts: settings.hosts, warn: opts.warn });
  return connectSsh(target, {
    keepaliveIntervalMs: settings.keepaliveIntervalMs,
    keepaliveCountMax: settings.keepaliveCountMax,
    ...opts,
  });
}
