// A multi-select list on the terminal (stderr): arrows or j/k move, Space
// toggles, `a` toggles all, Enter confirms, Esc / q / Ctrl-C cancel.
import { UsageError } from "../core/errors.ts";

export interface PickItem {
  label: string;
  /** Shown dimmed after the label. */
  detail?: string;
  /** Listed but not selectable, with why. */
  disabled?: string;
}

/** The indexes picked (in list order); cancelling throws a UsageError. */
export function pickMany(title: string, items: PickItem[], o: { color: boolean }): Promise<number[]> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return Promise.reject(new UsageError("stdin is not a terminal, so there is nothing to pick with", "name the servers, or use --all"));
  const dim = (s: string) => (o.color ? `\x1b[2m${s}\x1b[22m` : s);
  const inv = (s: string) => (o.color ? `\x1b[7m${s}\x1b[27m` : s);
  const picked = new Set<number>();
  let at = items.findIndex((i) => !i.disabled);
  if (at < 0) at = 0;
  let drawn = 0;
  // Each line is cut to the terminal's width: a wrapped line would break the redraw (cursor up N lines).
  const fit = (l: string) => {
    const cols = Math.max(20, (process.stderr.columns ?? 80) - 1);
    return [...l].length > cols ? `${[...l].slice(0, cols - 1).join("")}…` : l;
  };
  const draw = () => {
    const rows = items.map((it, i) => {
      const box = it.disabled ? "[-]" : picked.has(i) ? "[x]" : "[ ]";
      const head = `${i === at ? ">" : " "} ${box} ${it.label}`;
      const tail = it.disabled ? `${it.detail ?? ""} (${it.disabled})` : it.detail ?? "";
      const line = fit(`${head}  ${tail}`);
      return i === at ? inv(line) : `${line.slice(0, head.length)}${dim(line.slice(head.length))}`;
    });
    const lines = [fit(title), ...rows, dim(fit(`${picked.size} selected · ↑/↓ move · Space select · a all · Enter import · Esc cancel`))];
    process.stderr.write(`${drawn ? `\x1b[${drawn}A` : ""}${lines.map((l) => `\r\x1b[2K${l}`).join("\n")}\n`);
    drawn = lines.length;
  };
  const move = (d: number) => {
    for (let n = 0, i = at; n < items.length; n++) {
      i = (i + d + items.length) % items.length;
      if (!items[i]!.disabled) return void (at = i);
    }
  };
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      if (err) reject(err);
      else resolve([...picked].sort((a, b) => a - b));
    };
    // One read may hold several keys (typed fast, pasted): take them one by one.
    const onData = (buf: Buffer) => {
      for (const k of buf.toString("utf8").match(/\x1b\[[0-9;]*[A-Za-z~]|\x1bO[A-Za-z]|[^]/g) ?? []) {
        if (k === "\x1b[A" || k === "\x1bOA" || k === "k") move(-1);
        else if (k === "\x1b[B" || k === "\x1bOB" || k === "j") move(1);
        else if (k === " ") {
          if (!items[at]?.disabled) picked.has(at) ? picked.delete(at) : picked.add(at);
        } else if (k === "a") {
          const all = items.map((_, i) => i).filter((i) => !items[i]!.disabled);
          if (all.every((i) => picked.has(i))) picked.clear();
          else all.forEach((i) => picked.add(i));
        } else if (k === "\r" || k === "\n") return done();
        else if (k === "\x1b" || k === "q" || k === "\x03") return done(new UsageError("cancelled; nothing imported"));
      }
      draw();
    };
    stdin.setRawMode(true);
    draw();
    stdin.resume();
    stdin.on("data", onData);
  });
}
