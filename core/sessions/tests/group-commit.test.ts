// The session log's group commit: records appended in one synchronous stretch
// share one fsync (run as a microtask, before code awaiting after them goes
// on); a killed process still loses nothing it appended; close() syncs.
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, type Sandbox } from "../../engine/tests/helpers.ts";
import { parseJsonl } from "../log.ts";

const hasStrace = spawnSync("strace", ["-V"]).status === 0;
if (!hasStrace) console.warn("fsync count test skipped: strace is not installed");
const logModule = join(import.meta.dir, "..", "log.ts");

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

/** Run a script (with AppendLog imported) in a fresh Bun process. */
function run(body: string, strace = false) {
  const script = `import { AppendLog } from ${JSON.stringify(logModule)};\nconst path = process.argv[1];\n${body}`;
  const bun = process.execPath;
  const argv = strace ? ["strace", "-f", "-e", "trace=fsync,fdatasync,write", "-o", join(sb!.home, "trace"), bun, "-e", script, join(sb!.home, "t.jsonl")] : [bun, "-e", script, join(sb!.home, "t.jsonl")];
  return spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: 30_000 });
}
const records = () => parseJsonl<{ n: number }>(readFileSync(join(sb!.home, "t.jsonl"), "utf8")).records.map((r) => r.n);

describe("session log group commit", () => {
  test("kill -9 right after appending (no fsync yet) loses nothing", () => {
    sb = makeSandbox();
    const r = run(`const log = AppendLog.create(path); for (let n = 0; n < 3; n++) log.append({ n }); process.kill(process.pid, "SIGKILL");`);
    expect(r.signal).toBe("SIGKILL");
    expect(records()).toEqual([0, 1, 2]);
  });

  test.skipIf(!hasStrace)("one fsync per synchronous stretch, before code awaiting after it; close() syncs the rest", () => {
    sb = makeSandbox();
    const r = run(
      `const log = AppendLog.create(path);
       log.append({ n: 0 }); log.append({ n: 1 }); log.append({ n: 2 });
       await Promise.resolve();
       console.log("after-await");
       log.append({ n: 3 }); log.append({ n: 4 });
       await new Promise((r) => setTimeout(r, 5));
       log.append({ n: 5 });
       log.close();`,
      true,
    );
    expect(r.status).toBe(0);
    expect(records()).toEqual([0, 1, 2, 3, 4, 5]);
    const trace = readFileSync(join(sb.home, "trace"), "utf8").split("\n");
    const fsyncAt = trace.map((l, i) => (/\bf(data)?sync\(/.test(l) && !l.includes("resumed") ? i : -1)).filter((i) => i >= 0);
    expect(fsyncAt.length).toBe(3);
    // The first stretch is on disk before the code after its await printed anything.
    const printed = trace.findIndex((l) => l.includes("after-await"));
    expect(printed).toBeGreaterThan(fsyncAt[0]!);
  });
});
