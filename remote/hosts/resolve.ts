/** Turn a configured host into a transport target (OpenSSH semantics where they apply). */
import { existsSync } from "node:fs";
import { userInfo } from "node:os";
import { expandTilde } from "../../core/home.ts";
import { ReasonixError } from "../../core/errors.ts";
import { defaultIdentityFiles } from "../ssh/auth.ts";
import { targetLabel, type SshTarget } from "../ssh/target.ts";
import { sshG } from "./ssh-config.ts";
import { parseJumpList } from "./spec.ts";
import type { HostConfig } from "./types.ts";

const localUser = (): string => {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? "root";
  }
};

export interface ResolveOptions {
  /** Other configured hosts, so a ProxyJump hop can name one of them. */
  hosts?: HostConfig[];
  warn?: (m: string) => void;
}

async function resolveJumps(spec: string | undefined, base: Omit<SshTarget, "jumps" | "label">, opts: ResolveOptions, depth: number, viaSshConfig: boolean): Promise<SshTarget[] | undefined> {
  if (!spec) return undefined;
  if (depth > 8) throw new ReasonixError("jump_loop", `ProxyJump chain is too deep (loop?) at ${spec}`);
  const hops: SshTarget[] = [];
  for (const [i, hop] of parseJumpList(spec).entries()) {
    const named = opts.hosts?.find((h) => h.name === hop.host);
    if (named) {
      const t = await resolveTarget({ ...named, ...(hop.user ? { user: hop.user } : {}), ...(hop.port ? { port: hop.port } : {}) }, opts, depth + 1);
      hops.push(...(t.jumps ?? []), { ...t, jumps: undefined });
    } else if (viaSshConfig) {
      // OpenSSH resolves each hop through the config too (its own User, Port, IdentityFile).
      const g = await sshG(hop.host);
      const t: SshTarget = {
        host: g.hostname,
        port: hop.port ?? g.port,
        user: hop.user ?? (g.user || localUser()),
        identityFiles: g.identityFiles.filter((f) => existsSync(f)),
        identitiesOnly: g.identitiesOnly,
        passphraseEnv: base.passphraseEnv,
        label: hop.host,
      };
      const inner = i === 0 ? await resolveJumps(g.proxyJump, t, opts, depth + 1, true) : undefined;
      hops.push(...(inner ?? []), t);
    } else {
      const t = { ...base, host: hop.host, port: hop.port ?? 22, user: hop.user ?? localUser() };
      hops.push({ ...t, label: targetLabel(t), passwordEnv: undefined });
    }
  }
  return hops;
}

export async function resolveTarget(h: HostConfig, opts: ResolveOptions = {}, depth = 0): Promise<SshTarget> {
  if (h.use_ssh_config) {
    const g = await sshG(h.host ?? h.name);
    if (g.proxyCommand && !g.proxyJump) opts.warn?.(`${h.name}: ProxyCommand is not supported; connecting directly to ${g.hostname}`);
    const identityFiles = h.identity_file ? [expandTilde(h.identity_file)] : g.identityFiles.filter((f) => existsSync(f));
    const base = {
      host: g.hostname,
      port: h.port ?? g.port,
      user: h.user ?? (g.user || localUser()),
      identityFiles,
      identitiesOnly: g.identitiesOnly,
      passphraseEnv: h.passphrase_env,
      passwordEnv: h.password_env,
    };
    return { ...base, label: h.name, jumps: await resolveJumps(h.proxy_jump ?? g.proxyJump, base, opts, depth, true) };
  }
  if (!h.host) throw new ReasonixError("host_config", `remote host "${h.name}" has no host`, { hint: "set host = \"…\" or use_ssh_config = true" });
  const base = {
    host: h.host,
    port: h.port ?? 22,
    user: h.user ?? localUser(),
    identityFiles: h.identity_file ? [expandTilde(h.identity_file)] : defaultIdentityFiles(),
    identitiesOnly: !!h.identity_file,
    passphraseEnv: h.passphrase_env,
    passwordEnv: h.password_env,
  };
  return { ...base, label: h.name, jumps: await resolveJumps(h.proxy_jump, base, opts, depth, false) };
}
