/** Exit codes shared by every front end. */
export const ExitCode = { ok: 0, failure: 1, usage: 2, stopped: 3 } as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * An error whose message is fit to show a user as-is. `code` is a stable
 * machine-readable tag (for --json output and tests); `exitCode` is what the
 * CLI exits with when this error reaches the top.
 */
export class ReasonixError extends Error {
  readonly code: string;
  readonly exitCode: ExitCodeValue;
  readonly hint?: string;
  constructor(code: string, message: string, opts: { exitCode?: ExitCodeValue; hint?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "ReasonixError";
    this.code = code;
    this.exitCode = opts.exitCode ?? ExitCode.failure;
    this.hint = opts.hint;
  }
}

/** A problem with what the user typed: exit 2. */
export class UsageError extends ReasonixError {
  constructor(message: string, hint?: string) {
    super("usage", message, { exitCode: ExitCode.usage, hint });
    this.name = "UsageError";
  }
}

/** The user stopped what they started (Ctrl-C at a question, "cancel"): said plainly, not as an error; exit 2. */
export class CancelledError extends ReasonixError {
  constructor(message: string) {
    super("cancelled", message, { exitCode: ExitCode.usage });
    this.name = "CancelledError";
  }
}

/** A configuration file that cannot be used; names the file (and line/key). */
export class ConfigError extends ReasonixError {
  readonly file: string;
  constructor(file: string, message: string) {
    super("config", `${file}: ${message}`);
    this.name = "ConfigError";
    this.file = file;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
