// What `remote fs` reports: a remote path's entry, transfer progress and tuning,
// the typed error naming the remote path, and the NAME:PATH syntax.
import type { Stats } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";

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

export const SFTP_STATUS: Record<number, string> = {
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

export const toEntry = (name: string, path: string, s: Stats): RemoteEntry => ({
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

/** `NAME:PATH` → host name and remote path (the path may be empty: the home directory). */
export function parseRemotePath(spec: string): { host: string; path: string } | null {
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*):(.*)$/s.exec(spec);
  if (!m) return null;
  return { host: m[1]!, path: m[2]! };
}
