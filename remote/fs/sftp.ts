/**
 * RemoteFs: an SFTP session (session.ts: requests, `~`, metadata, directories)
 * plus transfers that never leave a partial file behind (temp name, journalled
 * in parts-journal.ts, then rename), and a named reason when a write fails
 * (statvfs, write-failure.ts). Transfers use ssh2's pipelined fastGet/fastPut
 * with many requests in flight, which is what makes SFTP fast over a latent link.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, readdirSync, existsSync } from "node:fs";
import { basename, dirname, join, posix } from "node:path";
import type { Client, Stats, TransferOptions } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";
import { describeNetError } from "../ssh/errors.ts";
import { RemoteFsError, type TransferProgress, type TransferTuning } from "./entries.ts";
import { orphanedParts, recordPart, sweepParts } from "./parts-journal.ts";
import { SftpSession, type RemoteFsOptions } from "./session.ts";
import { explainWriteFailure, type RemoteStatVfs } from "./write-failure.ts";

/** Permission bits of an existing local regular file at `path`, else null. */
const localFileMode = (path: string): number | null => {
  try {
    const s = statSync(path);
    return s.isFile() ? s.mode & 0o777 : null;
  } catch {
    return null;
  }
};

const tmpName = (path: string) => posix.join(posix.dirname(path), `.${posix.basename(path)}.rx-${randomBytes(4).toString("hex")}.part`);

export class RemoteFs extends SftpSession {
  static open(client: Client, label?: string, opts: RemoteFsOptions = {}): Promise<RemoteFs> {
    return new Promise((resolve, reject) => {
      client.sftp((err, sftp) => {
        if (err) return reject(new ReasonixError("sftp_unavailable", `SFTP is not available on ${label ?? "the remote"}: ${err.message}`));
        const fs = new RemoteFs(sftp, label, opts);
        // The channel does not always hear that the connection died (a killed session, a
        // keepalive timeout): watch the connection itself, and say why it went.
        let why: unknown;
        client.on("error", (e: Error) => (why ??= e));
        client.on("close", () => {
          fs.channelDead = true;
          fs.fail(new ReasonixError("remote_connection_lost", `${label ?? "remote"}: connection lost (${describeNetError(why ?? { message: "closed by the remote end" })}); the transfer did not complete`));
        });
        resolve(fs);
      });
    });
  }

  /** The filesystem holding `dir`, as statvfs@openssh.com reports it; null when the server cannot say. */
  private statVfs(dir: string): Promise<RemoteStatVfs | null> {
    return new Promise((resolve) => {
      const ext = (this.sftp as unknown as { _extensions?: Record<string, string> })._extensions?.["statvfs@openssh.com"];
      if (!ext || this.channelDead) return resolve(null);
      const t = setTimeout(() => resolve(null), 5000);
      this.sftp.ext_openssh_statvfs(dir, (err: Error | undefined, st: RemoteStatVfs) => {
        clearTimeout(t);
        resolve(err ? null : st);
      });
    });
  }

  /** A bare "operation failed" hides ENOSPC, EDQUOT, EROFS (see write-failure.ts): name the real reason. */
  private async explainFailure(e: unknown, dir: string, need: number): Promise<unknown> {
    if (!(e instanceof RemoteFsError) || e.status !== 4) return e;
    return new RemoteFsError(e.path, 4, explainWriteFailure(await this.statVfs(dir), need), e);
  }

  /**
   * Download one file atomically: a sibling temp file, renamed into place only when complete.
   * Overwriting keeps the local target's permission bits (as scp and sftp do, and as `putFile`
   * does) unless `preserve` asks for the source's; a new file gets the source's, less the umask.
   */
  async getFile(remote: string, local: string, opts: TransferTuning & { preserve?: boolean; onProgress?: (p: TransferProgress) => void } = {}): Promise<number> {
    const p = await this.resolve(remote);
    const st = await this.stat(remote);
    if (st.type === "dir") throw new RemoteFsError(`${this.label}:${remote}`, undefined, "is a directory (use -r)");
    mkdirSync(dirname(local), { recursive: true });
    const tmp = join(dirname(local), `.${basename(local)}.rx-${randomBytes(4).toString("hex")}.part`);
    // Permission bits only, as OpenSSH's sftp does: a setuid/setgid bit (remote, or of the file
    // being replaced) must never land on the downloaded content.
    let mode = st.mode & 0o777;
    let exact = !!opts.preserve;
    const existing = opts.preserve ? null : localFileMode(local);
    if (existing !== null) [mode, exact] = [existing, true];
    const options: TransferOptions = {
      concurrency: opts.concurrency ?? 64,
      chunkSize: opts.chunkSize ?? 255 * 1024,
      fileSize: st.size,
      // The temp file is created with the final bits (less the umask) so the content is never
      // more readable while it downloads than once it is in place.
      mode,
      step: (transferred: number, _chunk: number, total: number) => opts.onProgress?.({ path: remote, transferred, total }),
    };
    const forget = this.journalHost ? recordPart(this.journalHost, "local", tmp) : () => {};
    try {
      await this.call(remote, (cb) => this.sftp.fastGet(p, tmp, options, cb));
      if (statSync(tmp).size !== st.size) throw new RemoteFsError(`${this.label}:${remote}`, undefined, `short transfer (${statSync(tmp).size} of ${st.size} bytes)`);
      if (exact) chmodSync(tmp, mode);
      renameSync(tmp, local);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    } finally {
      forget();
    }
    return st.size;
  }

  /**
   * Upload one file atomically: a remote temp file, renamed over the target when complete.
   * Overwriting keeps the target's permission bits (as scp and sftp do) unless `preserve`
   * asks for the source's; a new file gets the source's.
   */
  async putFile(local: string, remote: string, opts: TransferTuning & { preserve?: boolean; onProgress?: (p: TransferProgress) => void } = {}): Promise<number> {
    const p = await this.resolve(remote);
    const st = statSync(local);
    let mode = st.mode & 0o777;
    if (!opts.preserve) {
      const existing = await this.stat(p).catch(() => null);
      if (existing?.type === "file") mode = existing.mode & 0o777;
    }
    const tmp = tmpName(p);
    const options: TransferOptions = {
      concurrency: opts.concurrency ?? 64,
      chunkSize: opts.chunkSize ?? 255 * 1024,
      mode,
      step: (transferred: number, _chunk: number, total: number) => opts.onProgress?.({ path: local, transferred, total }),
    };
    const forget = this.journalHost ? recordPart(this.journalHost, "remote", tmp) : () => {};
    try {
      await this.call(remote, (cb) => this.sftp.fastPut(local, tmp, options, cb));
      const sent = await this.call<Stats>(remote, (cb) => this.sftp.stat(tmp, cb));
      if (Number(sent.size) !== st.size) throw new RemoteFsError(`${this.label}:${remote}`, undefined, `short transfer (${sent.size} of ${st.size} bytes arrived)`);
      await this.rename(tmp, p);
      forget();
    } catch (e) {
      const err = await this.explainFailure(e, posix.dirname(p), st.size);
      if (await this.dropRemote(tmp)) forget();
      throw err;
    }
    return st.size;
  }

  /** Recursive download into a temp directory, renamed into place at the end. */
  async getTree(remote: string, local: string, opts: TransferTuning & { preserve?: boolean; onProgress?: (p: TransferProgress) => void } = {}): Promise<number> {
    const st = await this.stat(remote);
    if (st.type !== "dir") return this.getFile(remote, local, opts);
    if (existsSync(local)) throw new ReasonixError("local_exists", `${local} already exists; choose a new destination for a directory download`);
    const tmp = join(dirname(local), `.${basename(local)}.rx-${randomBytes(4).toString("hex")}.part`);
    let bytes = 0;
    const walk = async (r: string, l: string) => {
      mkdirSync(l, { recursive: true, mode: (await this.stat(r)).mode & 0o777 });
      for (const e of await this.list(r, { all: true })) {
        if (e.type === "dir") await walk(e.path, join(l, e.name));
        else if (e.type === "file") bytes += await this.getFile(e.path, join(l, e.name), opts);
      }
    };
    const forget = this.journalHost ? recordPart(this.journalHost, "local", tmp) : () => {};
    try {
      await walk(st.path, tmp);
      renameSync(tmp, local);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      throw e;
    } finally {
      forget();
    }
    return bytes;
  }

  /** Recursive upload; each file lands atomically. */
  async putTree(local: string, remote: string, opts: TransferTuning & { preserve?: boolean; onProgress?: (p: TransferProgress) => void } = {}): Promise<number> {
    const st = statSync(local);
    if (!st.isDirectory()) return this.putFile(local, remote, opts);
    let bytes = 0;
    const walk = async (l: string, r: string) => {
      await this.mkdir(r, { parents: true, mode: statSync(l).mode & 0o777 });
      for (const e of readdirSync(l, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (e.isDirectory()) await walk(join(l, e.name), posix.join(r, e.name));
        else if (e.isFile()) bytes += await this.putFile(join(l, e.name), posix.join(r, e.name), opts);
      }
    };
    await walk(local, await this.resolve(remote));
    return bytes;
  }
}

/**
 * Remove the temp files interrupted transfers left for `host` (see parts-journal.ts).
 * Opens an SFTP session only when there is something to remove. Best effort.
 */
export async function sweepOrphanedParts(client: Client, host: string): Promise<number> {
  if (orphanedParts(host).length === 0) return 0;
  const fs = await RemoteFs.open(client, host).catch(() => null);
  if (!fs) return 0;
  try {
    return await sweepParts(host, (p) => fs.removeTemp(p));
  } finally {
    fs.close();
  }
}
