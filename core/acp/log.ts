/**
 * The ACP agent's log. stdout carries only protocol frames, so diagnostics go
 * to stderr (editors show it in their agent log) and to
 * $REASONIX_HOME/logs/acp.log (0600), one timestamped line each.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

export interface AcpLog {
  info(msg: string): void;
  error(msg: string): void;
}

export function acpLog(home: string, opts: { stderr?: boolean } = {}): AcpLog {
  const dir = join(home, "logs");
  const file = join(dir, "acp.log");
  let broken = false;
  const write = (level: string, msg: string) => {
    const line = `${new Date().toISOString()} [${process.pid}] ${level} ${msg.replace(/\n/g, "\\n")}\n`;
    if (opts.stderr !== false) process.stderr.write(`reasonix acp: ${level === "error" ? "error: " : ""}${msg}\n`);
    if (broken) return;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      appendFileSync(file, line, { mode: 0o600 });
    } catch {
      // A read-only home must not stop the agent; stderr still has it.
      broken = true;
    }
  };
  return { info: (m) => write("info", m), error: (m) => write("error", m) };
}
