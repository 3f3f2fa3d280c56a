/**
 * What the last connect learnt about a host's remote serve (address, token,
 * pid), kept locally so the next connect can go straight to the tunnel: one
 * SSH handshake and two HTTP requests, no remote shell at all. Every entry is
 * re-checked against the live serve (version + token) before use. 0600: the
 * token opens the remote agent.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../core/fs/atomic.ts";
import { homePaths } from "../../core/home.ts";
import type { ServeInfo } from "../bootstrap/bootstrap.ts";

export class ServeCache {
  constructor(private readonly dir = join(homePaths().remote, "serve-cache")) {}

  private file(host: string, workspace: string): string {
    const h = createHash("sha256").update(`${host}\0${workspace}`).digest("hex").slice(0, 16);
    return join(this.dir, `${host.replace(/[^A-Za-z0-9._-]/g, "_")}-${h}.json`);
  }

  get(host: string, workspace: string): ServeInfo | null {
    try {
      const v = JSON.parse(readFileSync(this.file(host, workspace), "utf8")) as ServeInfo;
      return v && typeof v.token === "string" && v.addr && typeof v.addr.port === "number" ? v : null;
    } catch {
      return null;
    }
  }

  put(host: string, workspace: string, info: ServeInfo): void {
    writeFileAtomic(this.file(host, workspace), `${JSON.stringify(info)}\n`, { mode: 0o600, dirMode: 0o700 });
  }

  drop(host: string, workspace: string): void {
    rmSync(this.file(host, workspace), { force: true });
  }
}
