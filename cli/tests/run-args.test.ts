// cli/run-args.ts reads `reasonix run`'s common argument forms without yargs;
// whatever it answers must be what yargs answers, and what it cannot read
// exactly must go to yargs (undefined).
import { describe, expect, test } from "bun:test";
import yargs from "yargs";
import runCommand from "../commands/run.ts";
import { fastRunArgs, type RunArgs } from "../run-args.ts";

const KEYS: (keyof RunArgs)[] = ["prompt", "model", "auto", "permissionMode", "maxSteps", "addDir", "dir", "continue", "resume", "outputFormat", "trustProject", "goal"];

async function viaYargs(argv: string[]): Promise<Partial<RunArgs>> {
  let got: Record<string, unknown> | undefined;
  await yargs(["run", ...argv]).command({ ...runCommand, handler: (a: Record<string, unknown>) => void (got = a) }).strict().exitProcess(false).parseAsync();
  if (!got) throw new Error("yargs did not run the command");
  const out: Record<string, unknown> = {};
  for (const k of KEYS) if (got[k] !== undefined && !(k === "prompt" && (got[k] as unknown[]).length === 0)) out[k] = got[k];
  return out as Partial<RunArgs>;
}

const same = [
  ["hello"],
  ["fix", "the", "test"],
  ["42"],
  ["fix it", "--auto"],
  ["-y", "do", "it"],
  ["--model", "ds/chat", "hi"],
  ["-m", "x", "hi"],
  ["--model=a=b", "hi"],
  ["--permission-mode", "plan", "look"],
  ["--max-steps", "3", "go"],
  ["--add-dir", "/a", "--add-dir", "/b", "go"],
  ["--add-dir", "/a", "prompt", "words"],
  ["--dir", "/w", "-c", "more"],
  ["--resume", "abc", "continue"],
  ["--output-format", "stream-json", "q"],
  ["--trust-project", "--goal", "make tests pass"],
  ["--continue"],
  [],
];

const toYargs = [
  ["--help"],
  ["-h"],
  ["--no-auto", "x"],
  ["-yc", "x"],
  ["--auto", "true", "x"],
  ["--auto=false", "x"],
  ["--model"],
  ["--model", "-y", "x"],
  ["--model", "a", "--model", "b", "x"],
  ["--permission-mode", "bogus", "x"],
  ["--output-format", "xml", "x"],
  ["--max-steps", "0", "x"],
  ["--max-steps", "1.5", "x"],
  ["--max-steps", "abc", "x"],
  ["--goal"],
  ["--bogus", "x"],
  ["--", "-x"],
  ["-", "x"],
  ["-1"],
  ["--maxSteps", "2", "x"],
];

describe("fast run arguments", () => {
  for (const argv of same) {
    test(`same as yargs: run ${JSON.stringify(argv)}`, async () => {
      const fast = fastRunArgs(argv);
      expect(fast).toBeDefined();
      const clean = Object.fromEntries(Object.entries(fast!).filter(([, v]) => v !== undefined));
      expect(clean).toEqual(await viaYargs(argv));
    });
  }
  for (const argv of toYargs) {
    test(`left to yargs: run ${JSON.stringify(argv)}`, () => {
      expect(fastRunArgs(argv)).toBeUndefined();
    });
  }
});
