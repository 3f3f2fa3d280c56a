/**
 * `reasonix serve`'s arguments read without yargs, for the exact form a remote
 * connect starts it with (`--addr … --auth token --token-file … --port-file …
 * --pid-file … --workspace …`, each once): loading and running yargs is a good
 * part of the serve's start, which a cold `remote connect` waits for. Anything
 * else (help, `--flag=value`, another option, a repeat, a value that looks like
 * a flag, a bad choice) returns undefined and the full parser handles it.
 * cli/tests/serve-args.test.ts holds the two parsers to the same answers.
 */
import type { ServeArgs } from "./commands/serve.ts";

const STRINGS: Record<string, "addr" | "auth" | "tokenFile" | "portFile" | "pidFile" | "workspace"> = {
  "--addr": "addr",
  "--auth": "auth",
  "--token-file": "tokenFile",
  "--port-file": "portFile",
  "--pid-file": "pidFile",
  "--workspace": "workspace",
};
const AUTH = ["none", "token", "password"];

/** `argv` after `serve`; undefined when yargs must decide. */
export function fastServeArgs(argv: readonly string[]): (ServeArgs & { json: boolean }) | undefined {
  const out: ServeArgs & { json: boolean } = { json: false };
  for (let i = 0; i < argv.length; i += 2) {
    const key = STRINGS[argv[i]!];
    const value = argv[i + 1];
    if (!key || value === undefined || value === "" || value.startsWith("-") || out[key] !== undefined) return undefined;
    if (key === "auth") {
      if (!AUTH.includes(value)) return undefined;
      out.auth = value as ServeArgs["auth"];
    } else out[key] = value;
  }
  return out;
}
