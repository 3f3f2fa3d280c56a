// Reading a secret or a line from the terminal, and a secret from stdin.
import { UsageError } from "../core/errors.ts";

/** Prompt on stderr and read one line from a TTY without echoing it. Ctrl-C / Ctrl-D abort. */
export function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return Promise.reject(new UsageError("stdin is not a terminal, so the password cannot be prompted for", "use --password-stdin or --token-stdin"));
  return new Promise((resolve, reject) => {
    let value = "";
    const done = (err?: Error) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (buf: Buffer) => {
      for (const ch of buf.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003") return done(new UsageError("cancelled"));
        if (ch === "\u0004") return value === "" ? done(new UsageError("cancelled")) : done();
        if (ch === "\u007f" || ch === "\b") value = [...value].slice(0, -1).join("");
        else if (ch >= " ") value += ch;
      }
    };
    // Echo goes off before the prompt shows, so nothing typed after it is echoed.
    stdin.setRawMode(true);
    process.stderr.write(prompt);
    stdin.resume();
    stdin.on("data", onData);
  });
}

/** Prompt on stderr and read one visible line from a TTY. */
export async function readLine(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) throw new UsageError("stdin is not a terminal, so there is nothing to prompt with");
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(prompt)).trim();
  } finally {
    rl.close();
  }
}

/** All of stdin, without the final newline (for --password-stdin / --token-stdin). */
export async function readStdinSecret(what: string): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError(`--${what}-stdin expects the ${what} on a pipe, not a terminal`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin) {
    size += (c as Buffer).length;
    if (size > 8192) throw new UsageError(`--${what}-stdin: more than 8 KiB on stdin`);
    chunks.push(c as Buffer);
  }
  const v = Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
  if (v === "") throw new UsageError(`--${what}-stdin: stdin was empty`);
  return v;
}
