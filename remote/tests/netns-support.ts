// Shared by the link tests and the remote benchmark: small programs run inside
// a test network namespace (where the harness's sshd lives) — a sink that
// discards what it is sent, and a one-shot HTTP request to a port there.
import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";

/** Run JS with this runtime inside `ns`. */
export function spawnInNs(ns: string, js: string): ChildProcess {
  return spawn("ip", ["netns", "exec", ns, process.execPath, "-e", js], { stdio: ["ignore", "pipe", "pipe"] });
}

/** A TCP sink on 127.0.0.1 inside `ns` that reads and drops everything; resolves once it listens. */
export async function startSinkInNs(ns: string): Promise<{ port: number; stop(): void }> {
  const p = spawnInNs(ns, `const s=require("net").createServer(c=>{c.on("error",()=>{});c.resume()});s.listen(0,"127.0.0.1",()=>console.log("port="+s.address().port))`);
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    p.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /port=(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    p.once("exit", (c) => reject(new Error(`sink in ${ns} exited ${c}`)));
  });
  return { port, stop: () => void p.kill() };
}

/** GET / on 127.0.0.1:port inside `ns`: the status line, or null when nothing answers within timeoutMs. */
export async function httpStatusInNs(ns: string, port: number, timeoutMs = 3000): Promise<string | null> {
  const js = `const s=require("net").connect(${port},"127.0.0.1");let b="";s.on("connect",()=>s.write("GET / HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n"));s.on("data",d=>{b+=d;const i=b.indexOf("\\r\\n");if(i>0){process.stdout.write(b.slice(0,i),()=>process.exit(0))}});s.on("error",()=>process.exit(2));s.on("close",()=>process.exit(3));setTimeout(()=>process.exit(4),${timeoutMs})`;
  const p = spawnInNs(ns, js);
  let out = "";
  p.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => p.once("exit", (c) => r(c)));
  return code === 0 ? out : null;
}

/**
 * Push bytes into 127.0.0.1:port (a -L forward) as fast as it takes them for `ms`.
 * Resolves with the bytes the socket accepted.
 */
export function pushFor(port: number, ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, 120);
    let sent = 0;
    let done = false;
    const s = connect({ host: "127.0.0.1", port });
    const pump = () => {
      while (!done) {
        sent += chunk.length;
        if (!s.write(chunk)) return void s.once("drain", pump);
      }
    };
    s.once("connect", pump);
    s.on("error", (e) => {
      if (!done) reject(e);
    });
    setTimeout(() => {
      done = true;
      // What is still buffered locally was not accepted by the link.
      const pending = s.writableLength;
      s.destroy();
      resolve(Math.max(0, sent - pending));
    }, ms);
  });
}
