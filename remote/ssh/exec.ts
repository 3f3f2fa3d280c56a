import type { Client, ClientChannel } from "ssh2";
import { SshError } from "./errors.ts";

export interface ScriptResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Quote one word for POSIX sh. */
export const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * What the login shell runs for every script: an absolute path, because the login
 * shell's PATH (set by the user's rc files) is not trusted to contain sh.
 */
export const REMOTE_SH = "/bin/sh -s";

/** Start `command` on the remote (it is parsed by the user's login shell, so keep it trivial). */
export function execChannel(client: Client, command: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    client.exec(command, (err, ch) => (err ? reject(new SshError("exec_failed", `remote exec failed: ${err.message}`, { cause: err })) : resolve(ch)));
  });
}

/**
 * Run a POSIX sh script on the remote with the script on stdin, so the login shell
 * (bash, zsh, tcsh, fish) only ever parses the two words `/bin/sh -s`. `args` become "$@".
 */
export async function runScript(
  client: Client,
  script: string,
  opts: { args?: string[]; timeoutMs?: number; maxOutputBytes?: number; /** Each complete stdout line as it arrives. */ onLine?: (line: string) => void } = {},
): Promise<ScriptResult> {
  const ch = await execChannel(client, REMOTE_SH);
  const max = opts.maxOutputBytes ?? 16 * 1024 * 1024;
  const prelude = opts.args?.length ? `set -- ${opts.args.map(shQuote).join(" ")}\n` : "";
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    const take = (into: Buffer[]) => (d: Buffer) => {
      size += d.length;
      if (size <= max) into.push(d);
    };
    ch.on("data", take(out));
    let partial = "";
    if (opts.onLine) {
      const onLine = opts.onLine;
      ch.on("data", (d: Buffer) => {
        partial += d.toString("utf8");
        let i: number;
        while ((i = partial.indexOf("\n")) >= 0) {
          const line = partial.slice(0, i);
          partial = partial.slice(i + 1);
          try {
            onLine(line);
          } catch {}
        }
      });
    }
    ch.stderr.on("data", take(err));
    let code: number | null = null;
    let signal: string | null = null;
    ch.on("exit", (c: number | null, s?: string) => {
      code = c;
      signal = s ?? null;
    });
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          ch.close();
          reject(new SshError("exec_timeout", `remote script did not finish within ${opts.timeoutMs} ms`));
        }, opts.timeoutMs)
      : null;
    ch.on("close", () => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
    });
    ch.end(`${prelude}${script}\n`);
  });
}
