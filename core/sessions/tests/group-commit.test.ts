// The session log's group commit: records appended in one synchronous stretch
// share one fdatasync, run beside the caller (started as a microtask); code
// that must not act before they are on disk awaits flushed(); appends made
// while a sync runs share the next one; a killed process still loses nothing
// it appended; close() syncs.
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

  test.skipIf(!hasStrace)("one fdatasync per synchronous stretch, done before flushed() resolves; appends during a sync share the next; close() syncs the rest", () => {
    sb = makeSandbox();
    const r = run(
      `const log = AppendLog.create(path);
       log.append({ n: 0 }); log.append({ n: 1 }); log.append({ n: 2 });
       await log.flushed();
       console.log("after-first");
       log.append({ n: 3 });
       await Promise.resolve();
       log.append({ n: 4 });
       await Promise.resolve();
       log.append({ n: 5 });
       await log.flushed();
       console.log("after-second");
       log.append({ n: 6 });
       log.close();`,
      true,
    );
    expect(r.status).toBe(0);
    expect(records()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const trace = readFileSync(join(sb.home, "trace"), "utf8").split("\n");
    const isSync = (l: string) => /\bf(data)?sync\(/.test(l) || /<\.\.\. f(data)?sync resumed>/.test(l);
    const started = trace.filter((l) => /\bf(data)?sync\(/.test(l));
    // Where each sync returned: its whole line, or its "resumed" line when strace split it.
    const ended = trace.map((l, i) => (isSync(l) && !l.includes("<unfinished") ? i : -1)).filter((i) => i >= 0);
    const first = trace.findIndex((l) => l.includes("after-first"));
    const second = trace.findIndex((l) => l.includes("after-second"));
    // 0-2 share one; 3 starts one, 4 and 5 (appended while it ran) share at most one more; close() syncs 6.
    expect(started.length).toBeGreaterThanOrEqual(3);
    expect(started.length).toBeLessThanOrEqual(4);
    expect(ended[0]!).toBeLessThan(first);
    expect(ended.filter((i) => i < second).length).toBe(started.length - 1);
    expect(ended.at(-1)!).toBeGreaterThan(second);
  });

  test("flushed() after close, and with nothing appended, resolves at once", async () => {
    sb = makeSandbox();
    const { AppendLog } = await import("../log.ts");
    const log = AppendLog.create<{ n: number }>(join(sb.home, "t.jsonl"));
    await log.flushed();
    log.append({ n: 1 });
    const pending = log.flushed();
    log.close();
    await pending;
    await log.flushed();
    expect(records()).toEqual([1]);
  });
});
