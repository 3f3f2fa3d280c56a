/**
 * Upload a (compressed) binary to the remote over one exec channel: the
 * install script goes first on stdin, the payload right after it. The remote
 * decompresses and hashes while we send, and keeps the result as a `.part` named
 * by the artifact's identity key; the fenced start script compares the hash with
 * ours and only then makes it executable and renames it into place (bootstrap.ts).
 */
import type { Client } from "ssh2";
import { ReasonixError } from "../../core/errors.ts";
import { REMOTE_SH, execChannel, shQuote } from "../ssh/exec.ts";
import type { Codec, LateArtifact } from "./artifact.ts";
import { SshError } from "../ssh/errors.ts";
import { lockLost, type Fence } from "./lock.ts";
import { INSTALL_SCRIPT } from "./install-scripts.ts";
import { parseKv } from "./scripts.ts";
import type { LevelRun } from "./upload-controller.ts";

export interface UploadResult {
  bytesSent: number;
  /** Raw bytes of the binary the remote already had from an upload cut short. */
  resumedFrom: number;
  ms: number;
  /** An adaptive payload's levels and measured link speed. */
  summary?: { levels: LevelRun[]; linkBytesPerSec: number | null };
}

/** What goes over the wire: a file's chunks or a compressor's output, and how far along it is. */
export interface Payload {
  codec: Codec;
  chunks: AsyncIterable<Buffer>;
  /** [done, total] for progress (raw bytes consumed while streaming, else bytes sent). */
  progress(sent: number): [number, number];
  /** Called when the upload ends early, so a compressor can be stopped. */
  abort?(): void;
  /** An adaptive payload: the levels it used (runs, in order) and the link speed it measured. */
  summary?(): { levels: LevelRun[]; linkBytesPerSec: number | null };
}

/**
 * Where a payload comes from: `open(from)` starts it at raw byte `from` of the binary
 * (resuming an upload a lost link cut short), or returns null when it can only start
 * at 0 (a precompressed copy cannot be entered midway).
 */
export interface PayloadSource {
  codec: Codec;
  open(from: number): Promise<Payload> | null;
}

export async function uploadBinary(
  client: Client,
  art: Pick<LateArtifact, "version" | "size" | "key">,
  source: PayloadSource,
  fence: Fence,
  onProgress?: (done: number, total: number) => void,
): Promise<UploadResult> {
  const started = performance.now();
  const ch = await execChannel(client, REMOTE_SH);
  const header = `set -- ${[art.version, source.codec, art.key, fence.slug, fence.lockId, String(art.size)].map(shQuote).join(" ")}\n${INSTALL_SCRIPT}`;
  let out = "";
  let err = "";
  let onReady: () => void = () => {};
  const ready = new Promise<void>((r) => (onReady = r));
  ch.on("data", (d: Buffer) => {
    out += d.toString();
    if (/(^|\n)ready=1\n/.test(out)) onReady();
  });
  ch.stderr.on("data", (d: Buffer) => (err += d.toString()));
  let exitCode: number | null = null;
  ch.on("exit", (c: number | null) => (exitCode = c));
  const closed = new Promise<void>((resolve) => ch.on("close", () => resolve()));

  let sent = 0;
  let lastReport = 0;
  let resumedFrom = 0;
  let payload: Payload | null = null;
  const writeAll = async () => {
    ch.write(header);
    if (!(await Promise.race([ready.then(() => true), closed.then(() => false)]))) return;
    const have = Number(/(?:^|\n)have=(\d+)\n/.exec(out)?.[1] ?? 0);
    const resumed = have > 0 && have <= art.size ? source.open(have) : null;
    resumedFrom = resumed ? have : 0;
    payload = await (resumed ?? source.open(0)!);
    ch.write(`from=${resumedFrom}\n`);
    for await (const chunk of payload.chunks) {
      sent += chunk.length;
      const now = performance.now();
      if (onProgress && now - lastReport > 200) {
        lastReport = now;
        // 100 % only once, after the loop: the last chunk of a known-size payload reaches it here too.
        const [done, total] = payload.progress(sent);
        if (done < total) onProgress(done, total);
      }
      // Wait until ssh2 took the chunk (the SSH window let it through), not just buffered it:
      // an adaptive payload times each chunk to measure the link. The remote may bail out
      // early (bad codec, disk full): stop waiting then.
      const ok = await Promise.race([new Promise<boolean>((r) => ch.write(chunk, () => r(true))), closed.then(() => false)]);
      if (!ok) {
        payload.abort?.();
        return;
      }
    }
    onProgress?.(...payload.progress(sent));
    ch.end();
  };
  try {
    await Promise.all([writeAll(), closed]);
  } catch (e) {
    (payload as Payload | null)?.abort?.();
    ch.close();
    throw e;
  }
  const kv = parseKv(out);
  if (kv.get("received") !== "1" && !kv.has("error") && exitCode === null && !kv.has("lost_lock")) {
    // No exit status: the channel went with the connection, not with the script.
    throw new SshError("link_lost", `the link was lost during the upload (${sent} bytes sent)`);
  }
  if (kv.get("lost_lock")) throw lockLost("receiving the uploaded binary");
  if (kv.get("received") !== "1") {
    const detail = err.trim().split("\n").slice(-3).join("; ");
    const why = `${kv.get("error") ?? `install script exited with ${exitCode}`}${detail ? ` (${detail})` : ""}`;
    throw new ReasonixError("install_failed", `uploading reasonix ${art.version} failed: ${why}`);
  }
  const summary = (payload as Payload | null)?.summary?.();
  return { bytesSent: sent, resumedFrom, ms: performance.now() - started, ...(summary ? { summary } : {}) };
}
