/**
 * The set of known host keys: OpenSSH's files (read only) plus the Reasonix-managed
 * file, which is the only one we ever write.
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { homedir } from "node:os";
import { homePaths } from "../../core/home.ts";
import { hostFieldMatches, hostKeyName, readKnownHostsFile, type KnownHostEntry } from "./known-hosts.ts";

export type HostKeyStatus =
  | { status: "known"; entry: KnownHostEntry }
  | { status: "unknown"; otherTypes: KnownHostEntry[]; certAuthority: KnownHostEntry[] }
  | { status: "mismatch"; entry: KnownHostEntry }
  | { status: "revoked"; entry: KnownHostEntry };

export interface KnownHostsOptions {
  /** OpenSSH files to read; default ~/.ssh/known_hosts, ~/.ssh/known_hosts2, /etc/ssh/ssh_known_hosts. */
  systemFiles?: string[];
  /** The managed file; default $REASONIX_HOME/remote/known_hosts. */
  managedFile?: string;
}

export function defaultOpenSshFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  return [join(home, ".ssh", "known_hosts"), join(home, ".ssh", "known_hosts2"), "/etc/ssh/ssh_known_hosts"];
}

export class KnownHosts {
  readonly files: string[];
  readonly managedFile: string;
  private entries: KnownHostEntry[] = [];
  readonly warnings: string[] = [];

  constructor(opts: KnownHostsOptions = {}) {
    this.managedFile = opts.managedFile ?? homePaths().knownHosts;
    this.files = [...(opts.systemFiles ?? defaultOpenSshFiles()), this.managedFile];
    this.reload();
  }

  reload(): void {
    this.entries = [];
    this.warnings.length = 0;
    for (const f of this.files) {
      const parsed = readKnownHostsFile(f);
      this.entries.push(...parsed.entries);
      this.warnings.push(...parsed.warnings);
    }
  }

  /** Key types recorded for this host (to prefer them in algorithm negotiation, as OpenSSH does). */
  recordedTypes(host: string, port: number): string[] {
    const types = new Set<string>();
    for (const e of this.entries) if (e.marker === null && hostFieldMatches(e.hosts, host, port)) types.add(e.keyType);
    return [...types];
  }

  check(host: string, port: number, blob: Buffer): HostKeyStatus {
    const b64 = blob.toString("base64");
    const type = blob.subarray(4, 4 + blob.readUInt32BE(0)).toString("latin1");
    // @revoked applies to the key wherever it appears, whatever host field the line has.
    const revoked = this.entries.find((e) => e.marker === "revoked" && e.keyBase64 === b64);
    if (revoked) return { status: "revoked", entry: revoked };
    const forHost = this.entries.filter((e) => hostFieldMatches(e.hosts, host, port));
    const plain = forHost.filter((e) => e.marker === null);
    const same = plain.find((e) => e.keyType === type && e.keyBase64 === b64);
    if (same) return { status: "known", entry: same };
    const contradicting = plain.find((e) => e.keyType === type);
    if (contradicting) return { status: "mismatch", entry: contradicting };
    return {
      status: "unknown",
      otherTypes: plain,
      certAuthority: forHost.filter((e) => e.marker === "cert-authority"),
    };
  }

  /** Record an accepted key in the managed file (0600 in a 0700 directory). */
  add(host: string, port: number, blob: Buffer): string {
    const type = blob.subarray(4, 4 + blob.readUInt32BE(0)).toString("latin1");
    const file = this.managedFile;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    chmodSync(dirname(file), 0o700);
    const line = `${hostKeyName(host, port)} ${type} ${blob.toString("base64")}\n`;
    // Appending keeps earlier lines (and their line numbers in error messages) stable.
    const prefix = existsSync(file) && !/(^|\n)$/.test(readFileSync(file, "utf8")) ? "\n" : "";
    appendFileSync(file, prefix + line, { mode: 0o600 });
    chmodSync(file, 0o600);
    this.reload();
    return file;
  }
}
