// `npm test`: runs `bun test`, lists the ten slowest test files (from bun's
// junit report) and ends with one plain summary line
// ("tests: N passed, N failed, N skipped") that CI can read.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseJunit, slowestFiles } from "./lib/test-report.ts";

const args = process.argv.slice(2);
// Suites start real sshd, bwrap and chromium on a 2-core machine: a per-test
// limit of 5 s (bun's default) is too tight there. bunfig.toml cannot set it.
if (!args.some((a) => a.startsWith("--timeout"))) args.unshift("--timeout=60000");
const reportDir = mkdtempSync(join(tmpdir(), "rx-test-report-"));
const junit = join(reportDir, "junit.xml");
if (!args.some((a) => a.startsWith("--reporter"))) args.unshift("--reporter=junit", `--reporter-outfile=${junit}`);
const proc = Bun.spawn([process.execPath, "test", ...args], {
  stdout: "pipe",
  stderr: "pipe",
  env: { ...process.env, FORCE_COLOR: "0" },
});
let tail = "";
// Suites that cannot run their subject print "SKIPPED <what>: <why>"; the reasons are repeated at the end.
const skipReasons = new Set<string>();
async function pump(src: ReadableStream<Uint8Array>, dst: NodeJS.WriteStream) {
  const dec = new TextDecoder();
  let partial = "";
  for await (const chunk of src) {
    dst.write(chunk);
    const text = dec.decode(chunk, { stream: true });
    tail = (tail + text).slice(-4000);
    const lines = (partial + text).split("\n");
    partial = lines.pop()!;
    for (const l of lines) if (/^SKIPPED /.test(l.trim())) skipReasons.add(l.trim());
  }
}
await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
const code = await proc.exited;
const count = (word: string) => Number(new RegExp(`^\\s*(\\d+) ${word}\\s*$`, "m").exec(tail)?.[1] ?? 0);
const passed = count("pass");
const failed = count("fail");
const skipped = count("skip");
let slow: string[] = [];
try {
  slow = slowestFiles(parseJunit(readFileSync(junit, "utf8")).files);
} catch {
  // No report (another --reporter was asked for, or bun crashed): nothing to list.
}
rmSync(reportDir, { recursive: true, force: true });
if (slow.length > 0) process.stdout.write(`\nslowest test files:\n${slow.join("\n")}\n`);
if (skipReasons.size > 0) process.stdout.write(`\nskip reasons:\n${[...skipReasons].map((r) => `  ${r}`).join("\n")}\n`);
process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(code !== 0 ? code : passed === 0 ? 1 : 0);

export {};
