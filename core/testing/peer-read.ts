// "The peer has read what we sent", for a test server about to reset a
// connection on this machine. An RST makes the peer's kernel drop what the
// peer's process has not read yet, so a reset right after a write can overtake
// the frames it meant to cut. On loopback both ends of the connection are
// visible here: the peer's socket has received at least `minBytes` and its
// receive queue is empty, i.e. the peer's process read them (tcp_info via `ss`).
import { pollFor } from "./fresh-wait.ts";

/** One line of `ss -tinH` for the peer's socket: [unread bytes, bytes received], or null when it is gone. */
async function peerSocket(peerPort: number, ourPort: number): Promise<{ unread: number; received: number } | null> {
  const p = Bun.spawn(["ss", "-tinH", "state", "established", `( sport = :${peerPort} and dport = :${ourPort} )`], { stdout: "pipe", stderr: "ignore" });
  const out = await new Response(p.stdout).text();
  await p.exited;
  const unread = /^\s*(\d+)\s/.exec(out);
  if (!unread) return null;
  return { unread: Number(unread[1]), received: Number(/bytes_received:(\d+)/.exec(out)?.[1] ?? 0) };
}

/** Whether this machine can tell (Linux with iproute2's `ss`). */
export const canSeePeerReads = (): boolean => process.platform === "linux" && Bun.which("ss") !== null;

/**
 * Wait until the loopback peer at `peerPort` (connected to our `ourPort`) has received at
 * least `minBytes` and read everything that arrived. Resolves false, without throwing, when
 * the peer's socket is gone or `timeoutMs` passed (the caller goes ahead; its test then
 * fails on what the peer missed).
 */
export async function peerHasRead(peerPort: number, ourPort: number, minBytes: number, timeoutMs = 10_000): Promise<boolean> {
  try {
    const s = await pollFor(`the peer :${peerPort} to read ${minBytes} bytes`, () => peerSocket(peerPort, ourPort), (s) => s === null || (s.received >= minBytes && s.unread === 0), { timeoutMs, everyMs: 5, show: (s) => JSON.stringify(s) });
    return s !== null;
  } catch {
    return false;
  }
}
