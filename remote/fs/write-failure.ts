/**
 * Why a remote write failed. OpenSSH's sftp-server reports every errno it has no
 * SFTP code for (ENOSPC, EDQUOT, EROFS, EIO…) as a bare SSH_FX_FAILURE, so the
 * reason has to be asked of the filesystem (statvfs@openssh.com) and named.
 */

/** The fields of ssh2's `ext_openssh_statvfs` answer we use (uint64s: number or bigint). */
export interface RemoteStatVfs {
  f_frsize: number | bigint;
  f_bavail: number | bigint;
  f_favail: number | bigint;
  f_flag: number | bigint;
}

/** SSH2_FXE_STATVFS_ST_RDONLY in the statvfs@openssh.com reply. */
const ST_RDONLY = 0x1;

const human = (n: number): string => {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(1)} ${units[i]}`;
};

/**
 * The reason for a write of `need` bytes that failed with SSH_FX_FAILURE, from the
 * filesystem's statvfs (null when the server cannot say). Never a guess dressed as a fact:
 * when nothing explains it, it says what was ruled out.
 */
export function explainWriteFailure(vfs: RemoteStatVfs | null, need: number): string {
  if (!vfs) return "operation failed (the server gives no reason and cannot report free space)";
  const flag = Number(vfs.f_flag);
  const free = Number(vfs.f_bavail) * Number(vfs.f_frsize);
  const inodes = Number(vfs.f_favail);
  if (Number.isFinite(flag) && flag & ST_RDONLY) return "read-only file system (mounted read-only on the remote); nothing was written";
  // Measured after the failure, with the partial temp file still there: a full disk has
  // (next to) nothing left, whatever the transfer needed.
  if (Number.isFinite(free) && free < Math.min(Math.max(need, 1), 1024 * 1024)) {
    return `no space left on device (${human(free)} free on the remote filesystem, ${human(need)} needed); nothing was written`;
  }
  if (Number.isFinite(inodes) && inodes === 0) return "no free inodes on the remote filesystem (too many files); nothing was written";
  const room = Number.isFinite(free) ? `${human(free)} free, ` : "";
  return `operation failed (${room}not read-only: a disk quota for the remote user is the likely cause; check \`quota\` on the remote); nothing was written`;
}
