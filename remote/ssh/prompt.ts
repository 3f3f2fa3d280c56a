/**
 * Questions the SSH layer may need to ask a person: trust a new host key, a key
 * passphrase, a password. Without a terminal on both stdin and stderr nothing is asked.
 */
export interface Prompter {
  readonly interactive: boolean;
  /** Ask a yes/no question; default No. */
  confirm(question: string): Promise<boolean>;
  /** Ask for a secret without echoing it. */
  secret(question: string): Promise<string>;
}

export const nonInteractive: Prompter = {
  interactive: false,
  confirm: async () => false,
  secret: async () => {
    throw new Error("no terminal to prompt on");
  },
};

// Type-ahead: characters that arrived after the newline that ended the previous answer.
let pending = "";

function readLine(hidden: boolean): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    let buf = "";
    let finished = false;
    const wasRaw = stdin.isRaw;
    if (hidden) stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding("utf8");
    const done = (err?: Error) => {
      finished = true;
      stdin.off("data", onData);
      if (hidden) stdin.setRawMode(wasRaw);
      stdin.pause();
      if (hidden) process.stderr.write("\n");
      if (err) reject(err);
      else resolve(buf);
    };
    const onData = (chunk: string) => {
      const chars = [...chunk];
      for (let i = 0; i < chars.length; i++) {
        const ch = chars[i]!;
        if (ch === "\r" || ch === "\n") {
          // Swallow the \n of a \r\n pair; keep anything typed after it for the next prompt.
          const rest = chars.slice(ch === "\r" && chars[i + 1] === "\n" ? i + 2 : i + 1).join("");
          pending = rest + pending;
          return done();
        }
        if (ch === "\u0003") return done(new Error("cancelled"));
        if (ch === "\u007f" || ch === "\b") buf = buf.slice(0, -1);
        else if (ch === "\u0004" && buf === "") return done();
        else buf += ch;
      }
    };
    if (pending) {
      const early = pending;
      pending = "";
      onData(early);
      if (finished) return;
    }
    stdin.on("data", onData);
  });
}

export const ttyPrompter: Prompter = {
  interactive: true,
  async confirm(question) {
    process.stderr.write(`${question} [y/N] `);
    const answer = (await readLine(false)).trim().toLowerCase();
    return answer === "y" || answer === "yes";
  },
  async secret(question) {
    process.stderr.write(question);
    return readLine(true);
  },
};

/** The TTY prompter when stdin and stderr are terminals, else one that never asks. */
export function defaultPrompter(): Prompter {
  return process.stdin.isTTY && process.stderr.isTTY ? ttyPrompter : nonInteractive;
}
