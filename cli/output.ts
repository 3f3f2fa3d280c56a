import { ReasonixError, errorMessage, ExitCode } from "../core/errors.ts";
import { restoreTerminal } from "./terminal-restore.ts";

/** Colour only on a TTY and only when NO_COLOR is unset (https://no-color.org). */
export const useColor = (stream: NodeJS.WriteStream = process.stdout): boolean =>
  !process.env.NO_COLOR && !!stream.isTTY && process.env.TERM !== "dumb";

const wrap = (code: number, reset: number) => (s: string, stream?: NodeJS.WriteStream) =>
  useColor(stream) ? `\x1b[${code}m${s}\x1b[${reset}m` : s;
export const bold = wrap(1, 22);
export const dim = wrap(2, 22);
export const red = wrap(31, 39);
export const green = wrap(32, 39);
export const yellow = wrap(33, 39);
export const cyan = wrap(36, 39);

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** One JSON object per line (stream-json / supervisor events). */
export function printJsonLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function warn(message: string): void {
  process.stderr.write(`${yellow("warning:", process.stderr)} ${message}\n`);
}

/** Print an error the way every command does and return the exit code to use. */
export function reportError(err: unknown): number {
  // A full-screen front end still holding the terminal gives it back first.
  restoreTerminal();
  if (err instanceof ReasonixError) {
    // A cancellation the user asked for is no error.
    process.stderr.write(err.code === "cancelled" ? `${err.message}\n` : `${red("error:", process.stderr)} ${err.message}\n`);
    if (err.hint) process.stderr.write(`${dim("hint:", process.stderr)} ${err.hint}\n`);
    return err.exitCode;
  }
  process.stderr.write(`${red("error:", process.stderr)} ${errorMessage(err)}\n`);
  if (process.env.REASONIX_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  // Anything but a ReasonixError is a bug: keep a scrubbed crash report. Loaded
  // here, synchronously, so no startup path ever pays for it.
  (require("./crash.ts") as typeof import("./crash.ts")).recordCrash(err);
  return ExitCode.failure;
}
