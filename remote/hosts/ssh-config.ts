/**
 * OpenSSH client config: list the concrete aliases a user can import, and resolve
 * an alias to its effective settings with `ssh -G` (so Include, Match — even
 * `Match exec` — and wildcard Host blocks behave exactly as they do for ssh).
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { ReasonixError } from "../../core/errors.ts";

/** The ssh config to use: $REASONIX_SSH_CONFIG (tests, alternative setups) or ~/.ssh/config. */
export function sshConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.REASONIX_SSH_CONFIG || join(env.HOME || homedir(), ".ssh", "config");
}

export interface AliasInfo {
  alias: string;
  file: string;
  line: number;
}

function expandPath(p: string, baseDir: string): string {
  if (p.startsWith("~/")) p = join(process.env.HOME || homedir(), p.slice(2));
  return isAbsolute(p) ? p : join(baseDir, p);
}

/** Minimal glob for Include: `*` and `?` within the last path segments. */
function globFiles(pattern: string): string[] {
  if (!/[*?[]/.test(pattern)) return existsSync(pattern) ? [pattern] : [];
  const { Glob } = Bun;
  const root = pattern.startsWith("/") ? "/" : ".";
  const rel = pattern.startsWith("/") ? pattern.slice(1) : pattern;
  return [...new Glob(rel).scanSync({ cwd: root, absolute: true, onlyFiles: true })].sort();
}

/**
 * Concrete aliases (no `*`, `?` or `!`) from `Host` lines, following Include
 * (relative paths are relative to ~/.ssh, as ssh_config(5) says).
 */
export function listSshAliases(file = sshConfigPath(), warnings: string[] = [], depth = 0, seen = new Set<string>()): AliasInfo[] {
  if (depth > 16 || seen.has(file) || !existsSync(file) || !statSync(file).isFile()) return [];
  seen.add(file);
  const sshDir = join(process.env.HOME || homedir(), ".ssh");
  const out: AliasInfo[] = [];
  readFileSync(file, "utf8").split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const m = /^(\S+?)(?:\s*=\s*|\s+)(.*)$/.exec(line);
    if (!m) return;
    const key = m[1]!.toLowerCase();
    const args = (m[2]!.match(/"[^"]*"|\S+/g) ?? []).map((a) => a.replace(/^"|"$/g, ""));
    if (key === "include") {
      // ssh_config(5): relative Include paths are relative to ~/.ssh in a user config.
      for (const a of args) {
        const pat = expandPath(a, sshDir);
        for (const f of globFiles(pat)) out.push(...listSshAliases(f, warnings, depth + 1, seen));
      }
    } else if (key === "host") {
      for (const a of args) if (!/[*?!]/.test(a)) out.push({ alias: a, file, line: i + 1 });
    }
  });
  return out;
}

export interface SshGResult {
  hostname: string;
  user: string;
  port: number;
  identityFiles: string[];
  identitiesOnly: boolean;
  proxyJump?: string;
  proxyCommand?: string;
}

/** Run `ssh -G alias` and pick out what the transport needs. */
export function sshG(alias: string, configFile = sshConfigPath()): Promise<SshGResult> {
  const args = ["-G", ...(existsSync(configFile) ? ["-F", configFile] : []), "--", alias];
  return new Promise((resolve, reject) => {
    execFile("ssh", args, { timeout: 15_000, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
        return reject(
          new ReasonixError("ssh_config", missing ? "use_ssh_config needs the OpenSSH client (`ssh`) to resolve the host" : `ssh -G ${alias} failed: ${stderr.trim() || err.message}`),
        );
      }
      const identityFiles: string[] = [];
      const one = new Map<string, string>();
      for (const line of stdout.split("\n")) {
        const sp = line.indexOf(" ");
        if (sp < 0) continue;
        const k = line.slice(0, sp);
        const v = line.slice(sp + 1);
        if (k === "identityfile") identityFiles.push(expandPath(v, "/"));
        else if (!one.has(k)) one.set(k, v);
      }
      const pj = one.get("proxyjump");
      const pc = one.get("proxycommand");
      resolve({
        hostname: one.get("hostname") ?? alias,
        user: one.get("user") ?? "",
        port: Number(one.get("port") ?? 22),
        identityFiles,
        identitiesOnly: one.get("identitiesonly") === "yes",
        proxyJump: pj && pj !== "none" ? pj : undefined,
        proxyCommand: pc && pc !== "none" ? pc : undefined,
      });
    });
  });
}
