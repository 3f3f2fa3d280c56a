// Session-private temp dirs. All of them live under one per-user parent,
// which the Linux profile hides, so a command sees only its own session's.
// The parent sits in a shared, world-writable directory (/tmp), so another
// local user could create it first, or plant a link there, to read or swap
// every session's files: it is created 0700 and refused, with the cause and
// the fix, when it is anything but a directory of ours with mode 0700.
import { lstatSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReasonixError } from "../errors.ts";
import { resolveReal } from "../policy/paths.ts";

const uid = (): number | undefined => (typeof process.getuid === "function" ? process.getuid() : undefined);

function refuse(dir: string, what: string, fix: string): never {
  throw new ReasonixError("sandbox-tmp", `the session temp parent ${dir} ${what}; Reasonix will not put session files there`, {
    hint: `${fix}, or set TMPDIR to a directory only you can write`,
  });
}

/** Parent of every session temp dir for this user (`<tmp>/reasonix-<uid>`); `base` is for tests. */
export function sessionTmpParent(base: string = resolveReal(tmpdir())): string {
  const me = uid();
  const dir = join(base, `reasonix-${me ?? "user"}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  if (me === undefined) return dir; // Windows: no owner/mode bits to check
  const st = lstatSync(dir);
  if (st.isSymbolicLink()) refuse(dir, "is a symbolic link (someone may be redirecting it)", `remove it (rm ${dir})`);
  if (!st.isDirectory()) refuse(dir, "is not a directory", `remove it (rm ${dir})`);
  if (st.uid !== me) refuse(dir, `is owned by uid ${st.uid}, not by you (uid ${me})`, `have it removed (sudo rm -rf ${dir})`);
  const mode = st.mode & 0o777;
  if (mode !== 0o700) refuse(dir, `has mode 0${mode.toString(8)} instead of 0700, so others can reach it`, `run chmod 700 ${dir}, or remove it`);
  return dir;
}

/** A fresh private temp dir (0700) for one chat session. */
export function createSessionTmpDir(): string {
  return mkdtempSync(join(sessionTmpParent(), "session-"));
}

/** Remove a session temp dir (on /new, /clear, session switch). */
export function removeSessionTmpDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
