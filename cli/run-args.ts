/**
 * `reasonix run`'s arguments read without yargs, for the common forms only:
 * loading and running yargs costs a one-shot run more CPU than everything
 * else before its first request. Anything this does not know exactly (help,
 * `--no-…`, `-yc`, `--flag=true`, a value that looks like a flag, a repeated
 * option, a bad choice, `--`) returns undefined and the full parser handles
 * it, with its own help and errors. cli/tests/run-args.test.ts holds the two
 * parsers to the same answers.
 */
import { PERMISSION_MODES } from "../core/protocol/modes.ts";

export interface RunArgs {
  prompt?: string[];
  model?: string;
  auto: boolean;
  permissionMode?: string;
  maxSteps?: number;
  addDir?: string[];
  dir?: string;
  continue: boolean;
  resume?: string;
  outputFormat: "text" | "json" | "stream-json";
  trustProject: boolean;
  goal?: string;
}

type Key = keyof RunArgs;
const BOOLEANS: Record<string, Key> = { "--auto": "auto", "-y": "auto", "--continue": "continue", "-c": "continue", "--trust-project": "trustProject" };
const STRINGS: Record<string, Key> = { "--model": "model", "-m": "model", "--permission-mode": "permissionMode", "--max-steps": "maxSteps", "--add-dir": "addDir", "--dir": "dir", "--resume": "resume", "--goal": "goal", "--output-format": "outputFormat" };
const CHOICES: Partial<Record<Key, readonly string[]>> = { permissionMode: PERMISSION_MODES, outputFormat: ["text", "json", "stream-json"] };

/** `argv` after `run`; undefined when yargs must decide. */
export function fastRunArgs(argv: readonly string[]): RunArgs | undefined {
  const out: RunArgs = { auto: false, continue: false, outputFormat: "text", trustProject: false };
  const seen = new Set<Key>();
  const prompt: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i]!;
    if (!a.startsWith("-")) {
      prompt.push(a);
      continue;
    }
    let value: string | undefined;
    const eq = a.indexOf("=");
    if (a.startsWith("--") && eq > 0) [a, value] = [a.slice(0, eq), a.slice(eq + 1)];
    const flag = BOOLEANS[a];
    if (flag) {
      const next = argv[i + 1];
      if (value !== undefined || seen.has(flag) || next === "true" || next === "false") return undefined;
      seen.add(flag);
      (out as unknown as Record<string, unknown>)[flag] = true;
      continue;
    }
    const key = STRINGS[a];
    if (!key) return undefined;
    if (value === undefined) value = argv[++i];
    if (value === undefined || value.startsWith("-") || value === "") return undefined;
    if (seen.has(key) && key !== "addDir") return undefined;
    seen.add(key);
    if (CHOICES[key] && !CHOICES[key]!.includes(value)) return undefined;
    if (key === "maxSteps") {
      if (!/^[1-9]\d{0,8}$/.test(value)) return undefined;
      out.maxSteps = Number(value);
    } else if (key === "addDir") (out.addDir ??= []).push(value);
    else (out as unknown as Record<string, unknown>)[key] = value;
  }
  if (prompt.length > 0) out.prompt = prompt;
  return out;
}
