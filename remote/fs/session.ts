/**
 * One SFTP channel: requests that fail at once when the channel or the
 * connection dies (ssh2 leaves them pending), `~` expansion, typed errors naming
 * the remote path, metadata and directory operations. RemoteFs (sftp.ts) adds
 * the transfers on top.
 */
import { posix } from "node:path";
import type { FileEntry, SFTPWrapper, Stats } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";
import { RemoteFsError, SFTP_STATUS, toEntry, type RemoteEntry } from "./entries.ts";

export interface RemoteFsOptions {
  /**
   * Journal temp files under this host name (see parts-journal.ts), so an
   * interrupted transfer's `.part` is removed on the next connect at the latest.
   */
  journalHost?: string;
}

export class SftpSession {
  private homeDir: string | null = null;
  private closedError: Error | null = null;
  private readonly onClosed = new Set<(e: Error) => void>();
  protected readonly journalHost: string | undefined;
  protected channelDead = false;

  constructor(readonly sftp: SFTPWrapper, readonly label = "remote", opts: RemoteFsOptions = {}) {
    this.journalHost = opts.journalHost;
    // ssh2 does not fail in-flight requests (fastGet/fastPut) when the channel dies; do it here.
    sftp.on("close", () => (this.channelDead = true));
    sftp.on("end", () => (this.channelDead = true));
    sftp.on("close", () => this.fail(new ReasonixError("remote_fs_closed", `${label}: SFTP session closed (connection lost?); the transfer did not complete`)));
    sftp.on("end", () => this.fail(new ReasonixError("remote_fs_closed", `${label}: SFTP session closed (connection lost?); the transfer did not complete`)));
  }

  /** Fail every pending and future request with `err` (first reason wins). */
  protected fail(err: Error): void {
    if (this.closedError) return;
    this.closedError = err;
    for (const f of this.onClosed) f(err);
  }

  /** Stop: pending requests reject with `err` at once (a signal, a deadline); cleanups still run. */
  abort(err: Error): void {
    this.fail(err);
  }

  close(): void {
    this.sftp.end();
  }

  protected call<T>(path: string, fn: (cb: (err: Error | undefined | null, v?: T) => void) => void): Promise<T> {
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
  protected async dropRemote(path: string): Promise<boolean> {
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
}
