// The connection behind every `reasonix remote fs …` command: NAME:PATH parsing,
// and one SFTP session per command with the interrupted-transfer cleanup and
// the SIGINT/SIGTERM handling.
import { UsageError } from "../../core/errors.ts";
import { warn } from "../output.ts";

export type RemoteFsT = import("../../remote/fs/sftp.ts").RemoteFs;

export async function parseTarget(spec: string): Promise<{ host: string; path: string }> {
  const { parseRemotePath } = await import("../../remote/fs/entries.ts");
  const t = parseRemotePath(spec);
  if (!t) throw new UsageError(`"${spec}": expected NAME:PATH (e.g. gpu-box:'~/projects')`);
  return t;
}

/**
 * Connect, open SFTP, sweep the temp files an earlier interrupted transfer left
 * on this host, and run `fn`. SIGINT/SIGTERM stop the operation; its cleanup
 * (removing the `.part`) runs before the process exits 130/143.
 */
export async function withFs<T>(host: string, acceptNew: boolean, fn: (fs: RemoteFsT) => Promise<T>): Promise<T> {
  const { connectHost } = await import("../../remote/hosts/connect.ts");
  const { RemoteFs } = await import("../../remote/fs/sftp.ts");
  const { sweepParts } = await import("../../remote/fs/parts-journal.ts");
  const { ReasonixError } = await import("../../core/errors.ts");
  const conn = await connectHost(host, { acceptNew, warn });
  let signalled: NodeJS.Signals | null = null;
  let fs: RemoteFsT | null = null;
  const onSignal = (sig: NodeJS.Signals) => {
    const code = sig === "SIGINT" ? 130 : 143;
    if (signalled) {
      // Asked twice: go now; the journal has the temp file for the next connect.
      process.stderr.write(`\nleaving the temp file for the next connect to ${host} to remove\n`);
      process.exit(code);
    }
    signalled = sig;
    if (fs && process.stderr.isTTY) process.stderr.write(`\nstopping: removing the temp file (press Ctrl-C again to leave that to the next connect)\n`);
    const what = `${sig === "SIGINT" ? "interrupted" : "terminated"} (${sig})`;
    if (!fs) {
      process.stderr.write(`${what} before anything was transferred\n`);
      process.exit(code);
    }
    fs.abort(new ReasonixError("interrupted", `${what}: the transfer did not complete; its temp file is removed (now, or on the next connect to ${host} if the link is gone)`));
    // The cleanup has some seconds (its request waits behind the data in flight); whatever
    // it could not remove is swept on the next connect.
    setTimeout(() => process.exit(code), 20_000).unref();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // Keep the process alive while the operation runs: a request nobody answers must
  // end in an error, never in an event loop that drains into a silent exit 0.
  const alive = setInterval(() => {}, 60_000);
  try {
    fs = await RemoteFs.open(conn.client, host, { journalHost: host });
    await sweepParts(host, (p) => fs!.removeTemp(p));
    try {
      return await fn(fs);
    } catch (e) {
      if (signalled) {
        process.stderr.write(`${(e as Error).message}\n`);
        process.exit(signalled === "SIGINT" ? 130 : 143);
      }
      throw e;
    } finally {
      fs.close();
    }
  } finally {
    clearInterval(alive);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    conn.close();
  }
}
