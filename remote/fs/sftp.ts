/**
 * Remote file operations over SFTP: `~` expansion, typed errors naming the
 * remote path, and transfers that never leave a partial file behind (temp name,
 * then rename). Transfers use ssh2's pipelined fastGet/fastPut with many
 * requests in flight, which is what makes SFTP fast over a latent link.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, readdirSync, existsSync } from "node:fs";
import { basename, dirname, join, posix } from "node:path";
import type { Client, FileEntry, SFTPWrapper, Stats, TransferOptions } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";
import { describeNetError } from "../ssh/errors.ts";
import { orphanedParts, recordPart, sweepParts } from "./parts-journal.ts";
import { explainWriteFailure, type RemoteStatVfs } from "./write-failure.ts";

export interface RemoteEntry {
  name: string;
  path: string;
  type: "file" | "dir" | "symlink" | "other";
  size: number;
  mode: number;
  uid: number;
  gid: number;
  mtime: number;
  atime: number;
}

export interface TransferProgress {
  path: string;
  transferred: number;
  total: number;
}

export interface TransferTuning {
  /** Requests in flight per file (default 64). */
  concurrency?: number;
  /** Bytes per request (default 255 KiB; ssh2 caps it at the server's limits). */
  chunkSize?: number;
}

const SFTP_STATUS: Record<number, string> = {
  2: "no such file or directory",
  3: "permission denied",
  4: "operation failed",
  5: "bad message",
  8: "operation unsupported",
  11: "file already exists",
};

export class RemoteFsError extends ReasonixError {
  constructor(readonly path: string, readonly status: number | undefined, message: string, cause?: unknown) {
    super(status === 2 ? "remote_not_found" : "remote_fs", `${path}: ${message}`, { cause });
    this.name = "RemoteFsError";
  }
}

const typeOf = (s: Stats): RemoteEntry["type"] =>
  s.isDirectory() ? "dir" : s.isFile() ? "file" : s.isSymbolicLink() ? "symlink" : "other";

const toEntry = (name: string, path: string, s: Stats): RemoteEntry => ({
  name,
  path,
  type: typeOf(s),
  size: Number(s.size),
  mode: s.mode & 0o7777,
  uid: s.uid,
  gid: s.gid,
  mtime: s.mtime,
  atime: s.atime,
});

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

export interface RemoteFsOptions {
  /**
   * Journal temp files under this host name (see parts-journal.ts), so an
   * interrupted transfer's `.part` is removed on the next connect at the latest.
   */
  journalHost?: string;
}

export class RemoteFs {
  private homeDir: string | null = null;
  private closedError: Error | null = null;
  private readonly onClosed = new Set<(e: Error) => void>();
  private readonly journalHost: string | undefined;
  private channelDead = false;

  constructor(readonly sftp: SFTPWrapper, readonly label = "remote", opts: RemoteFsOptions = {}) {
    this.journalHost = opts.journalHost;
    // ssh2 does not fail in-flight requests (fastGet/fastPut) when the channel dies; do it here.
    sftp.on("close", () => (this.channelDead = true));
    sftp.on("end", () => (this.channelDead = true));
    sftp.on("close", () => this.fail(new ReasonixError("remote_fs_closed", `${label}: SFTP session closed (connection lost?); the transfer did not complete`)));
    sftp.on("end", () => this.fail(new ReasonixError("remote_fs_closed", `${label}: SFTP session closed (connection lost?); the transfer did not complete`)));
  }

  /** Fail every pending and future request with `err` (first reason wins). */
  private fail(err: Error): void {
    if (this.closedError) return;
    this.closedError = err;
    for (const f of this.onClosed) f(err);
  }

  /** Stop: pending requests reject with `err` at once (a signal, a deadline); cleanups still run. */
  abort(err: Error): void {
    this.fail(err);
  }

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

  close(): void {
    this.sftp.end();
  }

  private call<T>(path: string, fn: (cb: (err: Error | undefined | null, v?: T) => void) => void): Promise<T> {
    return new Promise((resolve, reject) => {
      if (this.closedError) return reject(this.closedError);
      const onClose = (e: Error) => reject(e);
      this.onClosed.add(onClose);
      fn((err, v) => {
        this.onClosed.delete(onClose);
        if (!err) return resolve(v as T);
        const code = (err as { code?: number }).code;
        reject(new RemoteFsError(`${this.label}:${path}`, code, (code !== undefined && SFTP_STATUS[code]) || err.message, err));
      });
    });
  }

  /** The login directory (where an SFTP session starts), used for `~`. */
  async home(): Promise<string> {
    if (this.homeDir === null) this.homeDir = await this.call<string>(".", (cb) => this.sftp.realpath(".", cb));
    return this.homeDir;
  }

  /** Expand `~` and make relative paths relative to the home directory. */
  async resolve(path: string): Promise<string> {
    if (path === "" || path === "~") return this.home();
    if (path.startsWith("~/")) return posix.join(await this.home(), path.slice(2));
    if (!path.startsWith("/")) return posix.join(await this.home(), path);
    return path;
  }

  async stat(path: string): Promise<RemoteEntry> {
    const p = await this.resolve(path);
    const s = await this.call<Stats>(path, (cb) => this.sftp.stat(p, cb));
    return toEntry(posix.basename(p) || "/", p, s);
  }

  async lstat(path: string): Promise<RemoteEntry> {
    const p = await this.resolve(path);
    const s = await this.call<Stats>(path, (cb) => this.sftp.lstat(p, cb));
    return toEntry(posix.basename(p) || "/", p, s);
  }

  async exists(path: string): Promise<boolean> {
    try {
      await this.lstat(path);
      return true;
    } catch (e) {
      if (e instanceof RemoteFsError && e.status === 2) return false;
      throw e;
    }
  }

  /** Directory entries, sorted by name; a file lists as itself. Dotfiles only with `all`. */
  async list(path: string, opts: { all?: boolean } = {}): Promise<RemoteEntry[]> {
    const p = await this.resolve(path);
    const st = await this.stat(path);
    if (st.type !== "dir") return [st];
    const raw = await this.call<FileEntry[]>(path, (cb) => this.sftp.readdir(p, cb));
    return raw
      .filter((e) => e.filename !== "." && e.filename !== ".." && (opts.all || !e.filename.startsWith(".")))
      .map((e) => toEntry(e.filename, posix.join(p, e.filename), e.attrs as unknown as Stats))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async readFile(path: string): Promise<Buffer> {
    const p = await this.resolve(path);
    return this.call<Buffer>(path, (cb) => this.sftp.readFile(p, cb as never));
  }

  /** Stream a remote file to `out` (for `cat`). */
  async pipeTo(path: string, out: NodeJS.WritableStream): Promise<void> {
    const p = await this.resolve(path);
    const st = await this.stat(path);
    if (st.type === "dir") throw new RemoteFsError(`${this.label}:${path}`, undefined, "is a directory");
    await new Promise<void>((resolve, reject) => {
      if (this.closedError) return reject(this.closedError);
      const rs = this.sftp.createReadStream(p, { highWaterMark: 256 * 1024 });
      const onClose = (e: Error) => {
        rs.destroy();
        reject(e);
      };
      this.onClosed.add(onClose);
      rs.on("error", (e: Error) => reject(new RemoteFsError(`${this.label}:${path}`, (e as { code?: number }).code, e.message, e)));
      rs.on("end", () => {
        this.onClosed.delete(onClose);
        resolve();
      });
      rs.pipe(out as NodeJS.WritableStream, { end: false });
    });
  }

  async mkdir(path: string, opts: { parents?: boolean; mode?: number } = {}): Promise<void> {
    const p = await this.resolve(path);
    if (!opts.parents) {
      await this.call(path, (cb) => this.sftp.mkdir(p, { mode: opts.mode ?? 0o755 }, cb));
      return;
    }
    const parts = p.split("/").filter(Boolean);
    let cur = "";
    for (const part of parts) {
      cur += `/${part}`;
      const here = cur;
      try {
        const s = await this.call<Stats>(here, (cb) => this.sftp.stat(here, cb));
        if (!s.isDirectory()) throw new RemoteFsError(`${this.label}:${here}`, undefined, "exists and is not a directory");
      } catch (e) {
        if (!(e instanceof RemoteFsError) || e.status !== 2) throw e;
        await this.call(here, (cb) => this.sftp.mkdir(here, { mode: opts.mode ?? 0o755 }, cb));
      }
    }
  }

  async remove(path: string, opts: { recursive?: boolean } = {}): Promise<void> {
    const p = await this.resolve(path);
    const st = await this.lstat(path);
    if (st.type !== "dir") {
      await this.call(path, (cb) => this.sftp.unlink(p, cb));
      return;
    }
    if (!opts.recursive) throw new RemoteFsError(`${this.label}:${path}`, undefined, "is a directory (use -r)");
    for (const e of await this.list(p, { all: true })) await this.remove(e.path, { recursive: true });
    await this.call(path, (cb) => this.sftp.rmdir(p, cb));
  }

  /** Rename, replacing the destination (OpenSSH posix-rename) when the server supports it. */
  async rename(from: string, to: string): Promise<void> {
    const a = await this.resolve(from);
    const b = await this.resolve(to);
    const posixRename = (this.sftp as unknown as { _extensions?: Record<string, string> })._extensions?.["posix-rename@openssh.com"];
    if (posixRename) await this.call(to, (cb) => this.sftp.ext_openssh_rename(a, b, cb));
    else await this.call(to, (cb) => this.sftp.rename(a, b, cb));
  }

  /** Remove a remote temp file; false when that could not be confirmed (channel gone). */
  private async dropRemote(path: string): Promise<boolean> {
    if (this.channelDead) return false;
    return new Promise<boolean>((resolve) => {
      // The unlink queues behind the data already in flight: on a slow link that takes a while.
      const t = setTimeout(() => resolve(false), 15_000);
      try {
        this.sftp.unlink(path, (err) => {
          clearTimeout(t);
          resolve(!err || (err as { code?: number }).code === 2);
        });
      } catch {
        clearTimeout(t);
        resolve(false);
      }
    });
  }

  /** Remove a temp file an earlier transfer left (the journal sweep); "no such file" counts as done. */
  async removeTemp(path: string): Promise<void> {
    if (!(await this.dropRemote(path))) throw new RemoteFsError(`${this.label}:${path}`, undefined, "could not remove the temp file");
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

/** `NAME:PATH` → host name and remote path (the path may be empty: the home directory). */
export function parseRemotePath(spec: string): { host: string; path: string } | null {
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*):(.*)$/s.exec(spec);
  if (!m) return null;
  return { host: m[1]!, path: m[2]! };
}
