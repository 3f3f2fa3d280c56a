// cli/serve-args.ts reads the `reasonix serve` form a remote connect starts
// (remote/bootstrap/scripts.ts START_SCRIPT) without yargs; whatever it answers
// must be what yargs answers, and what it cannot read exactly goes to yargs.
import { describe, expect, test } from "bun:test";
import yargs from "yargs";
import serveCommand, { type ServeArgs } from "../commands/serve.ts";
import { fastServeArgs } from "../serve-args.ts";

const KEYS: (keyof ServeArgs)[] = ["addr", "auth", "token", "tokenFile", "password", "portFile", "pidFile", "workspace", "model", "resume", "behindProxy", "publicHost", "allowUnauthenticated", "json"];

async function viaYargs(argv: string[]): Promise<Partial<ServeArgs>> {
  let got: Record<string, unknown> | undefined;
  await yargs(["serve", ...argv]).command({ ...serveCommand, handler: (a: Record<string, unknown>) => void (got = a) }).strict().exitProcess(false).parseAsync();
  if (!got) throw new Error("yargs did not run the command");
  const out: Record<string, unknown> = {};
  for (const k of KEYS) if (got[k] !== undefined) out[k] = got[k];
  return out as Partial<ServeArgs>;
}

// The remote's form, and its pieces in another order.
const remote = ["--addr", "127.0.0.1:0", "--auth", "token", "--token-file", "/h/.reasonix/remote/serve-ab.token", "--port-file", "/h/p", "--pid-file", "/h/pid", "--workspace", "/h/my work"];
const same = [remote, [...remote.slice(10), ...remote.slice(0, 10)], ["--workspace", "/w"], ["--auth", "none", "--addr", "127.0.0.1:9"], []];

const toYargs = [
  ["--help"],
  ["--addr"],
  ["--addr=127.0.0.1:0"],
  ["--auth", "bogus"],
  ["--addr", "a", "--addr", "b"],
  ["--workspace", "-x"],
  ["--workspace", ""],
  ["--json"],
  ["--token", "t"],
  ["--hash-password", "--password", "p"],
  ["--portFile", "/p"],
  ["stray"],
];

describe("fast serve arguments", () => {
  for (const argv of same) {
    test(`same as yargs: serve ${JSON.stringify(argv)}`, async () => {
      const fast = fastServeArgs(argv);
      expect(fast).toBeDefined();
      expect(fast as Partial<ServeArgs>).toEqual(await viaYargs(argv));
    });
  }
  for (const argv of toYargs) {
    test(`left to yargs: serve ${JSON.stringify(argv)}`, () => {
      expect(fastServeArgs(argv)).toBeUndefined();
    });
  }
});
