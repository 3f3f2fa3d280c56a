/**
 * `[[remote.hosts]]` in the user config: read through the config loader (so a
 * project file can never contribute hosts), written by line-level edits that
 * are re-parsed and checked before an atomic replace.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { ConfigError, ReasonixError, UsageError } from "../../core/errors.ts";
import { writeFileAtomic } from "../../core/fs/atomic.ts";
import { homePaths } from "../../core/home.ts";
import { loadConfig, parseConfigText } from "../../core/config/load.ts";
import { appendHostBlock, removeHostBlock } from "./config-text.ts";
import { HOST_NAME_RE, type HostConfig } from "./types.ts";

export interface RemoteSettings {
  hosts: HostConfig[];
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  warnings: string[];
}

export function userConfigPath(): string {
  return homePaths().config;
}

/** Hosts and keepalive settings from the user config only. */
export function loadRemoteSettings(): RemoteSettings {
  const cfg = loadConfig({ noProject: true });
  const remote = (cfg.values.remote ?? {}) as { hosts?: HostConfig[]; keepalive_interval_ms?: number; keepalive_count_max?: number };
  return {
    hosts: remote.hosts ?? [],
    keepaliveIntervalMs: remote.keepalive_interval_ms ?? 1000,
    keepaliveCountMax: remote.keepalive_count_max ?? 4,
    warnings: cfg.warnings,
  };
}

export function listHosts(): HostConfig[] {
  return loadRemoteSettings().hosts;
}

export function getHost(name: string): HostConfig {
  const hosts = listHosts();
  const h = hosts.find((x) => x.name === name);
  if (!h) {
    throw new ReasonixError("host_not_found", `no remote host named "${name}" in ${userConfigPath()}`, {
      hint: hosts.length ? `known hosts: ${hosts.map((x) => x.name).join(", ")}` : "add one with `reasonix remote add NAME [USER@]HOST[:PORT]`",
    });
  }
  return h;
}

const hostsIn = (text: string, path: string): HostConfig[] =>
  ((parseConfigText(text, path, "user", []).data.remote as { hosts?: HostConfig[] } | undefined)?.hosts ?? []);

/**
 * Apply a text edit to the user config. The result must parse, must change the
 * host list exactly as `expect` says, and must leave everything else identical.
 */
export function editUserConfig(edit: (text: string) => string, expect: (before: HostConfig[], after: HostConfig[]) => string | null, path = userConfigPath()): void {
  const before = existsSync(path) ? readFileSync(path, "utf8") : "";
  const after = edit(before);
  const parsedBefore = before ? parseConfigText(before, path, "user", []).data : {};
  let parsedAfter: Record<string, unknown>;
  try {
    parsedAfter = parseConfigText(after, path, "user", []).data;
  } catch (e) {
    throw new ConfigError(path, `editing [[remote.hosts]] would break the file (${(e as Error).message}); edit it by hand`);
  }
  const problem = expect(hostsIn(before, path), hostsIn(after, path));
  const strip = (d: Record<string, unknown>) => {
    const copy = structuredClone(d) as Record<string, Record<string, unknown>>;
    if (copy.remote) {
      delete copy.remote.hosts;
      if (Object.keys(copy.remote).length === 0) delete copy.remote;
    }
    return JSON.stringify(copy);
  };
  if (problem || strip(parsedBefore) !== strip(parsedAfter)) {
    throw new ConfigError(path, `could not edit [[remote.hosts]] without disturbing other settings${problem ? ` (${problem})` : ""}; edit it by hand`);
  }
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o600;
  writeFileAtomic(path, after, { mode, dirMode: 0o700 });
}

export function validateHostName(name: string): void {
  if (!HOST_NAME_RE.test(name)) throw new UsageError(`invalid host name "${name}": use letters, digits, ".", "_" and "-"`);
}

export function addHost(host: HostConfig, path = userConfigPath()): void {
  validateHostName(host.name);
  const existing = existsSync(path) ? hostsIn(readFileSync(path, "utf8"), path) : [];
  if (existing.some((h) => h.name === host.name)) {
    throw new ReasonixError("host_exists", `a remote host named "${host.name}" already exists in ${path}`, {
      hint: `remove it first with \`reasonix remote remove ${host.name}\``,
    });
  }
  editUserConfig(
    (t) => appendHostBlock(t, host as unknown as Record<string, unknown>),
    (b, a) => (a.length === b.length + 1 && JSON.stringify(a[a.length - 1]) === JSON.stringify(host) ? null : "the new entry did not read back"),
    path,
  );
}

export function removeHost(name: string, path = userConfigPath()): void {
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  if (!hostsIn(text, path).some((h) => h.name === name)) {
    throw new ReasonixError("host_not_found", `no remote host named "${name}" in ${path}`);
  }
  editUserConfig(
    (t) => {
      const out = removeHostBlock(t, name);
      if (out === null) throw new ConfigError(path, `cannot locate the [[remote.hosts]] block for "${name}"; edit it by hand`);
      return out;
    },
    (b, a) => (a.length === b.length - 1 && !a.some((h) => h.name === name) ? null : "the entry was not removed cleanly"),
    path,
  );
}
