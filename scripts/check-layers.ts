// The direction of imports (`bun scripts/check-layers.ts`; run by `npm test`
// through scripts/tests/layers.test.ts):
//   cli → remote → core; core never imports cli or remote; remote never imports cli;
//   core/protocol (browser-safe) imports nothing outside itself;
//   no import cycles, type-only imports included.
// Tests are checked for the direction too, not for cycles among themselves.
// It also lists product files over MAX_LINES lines (tests and generated code
// excepted) as a warning, not a failure: they are due a split by job.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cyclePath, cycles, importGraph, importsOf, repoRoot, sourceFiles } from "./lib/imports.ts";

const layer = (file: string) => file.split("/")[0]!;

export interface LayerReport {
  /** "a.ts imports b.ts: <rule>" lines. */
  direction: string[];
  /** Each import cycle as a path a → b → a. */
  cycles: string[];
}

/** The rule `file` breaks by importing `spec` (resolved to the repository file `to`, absent for a package), if any. */
export function brokenRule(file: string, spec: string, to?: string): string | undefined {
  if (file.startsWith("core/protocol/") && !file.startsWith("core/protocol/tests/")) {
    return to?.startsWith("core/protocol/") ? undefined : `${file} imports ${spec}: core/protocol imports nothing outside itself (it runs in the browser too)`;
  }
  if (!to) return undefined;
  const from = layer(file);
  const into = layer(to);
  if (from === "core" && (into === "cli" || into === "remote")) return `${file} imports ${to}: core never imports ${into}`;
  if (from === "remote" && into === "cli") return `${file} imports ${to}: remote never imports cli`;
  return undefined;
}

export function checkLayers(): LayerReport {
  const direction: string[] = [];
  for (const file of sourceFiles(["cli", "core", "remote"])) {
    for (const e of importsOf(file)) {
      const broken = brokenRule(file, e.spec, e.to);
      if (broken) direction.push(broken);
    }
  }
  const product = sourceFiles(["cli", "core", "remote"], { tests: false });
  const graph = importGraph(product);
  const found = cycles(graph).map((c) => `${cyclePath(graph, c).join(" → ")}${c.length > 2 ? ` (${c.length} files in the cycle: ${c.join(", ")})` : ""}`);
  return { direction, cycles: found };
}

/** The line limit for one product file (the developers' guide: files small and named for their job). */
export const MAX_LINES = 400;

/** Non-test .ts/.tsx files over `max` lines (generated files, marked `@generated`, excepted), largest first, as "path (N lines)". */
export function oversizedFiles(max = MAX_LINES): string[] {
  const found: { file: string; lines: number }[] = [];
  for (const file of sourceFiles(["cli", "core", "remote", "services", "scripts"], { tests: false })) {
    const text = readFileSync(join(repoRoot, file), "utf8");
    if (/@generated\b/.test(text.slice(0, 500))) continue;
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > max) found.push({ file, lines });
  }
  return found.sort((a, b) => b.lines - a.lines || (a.file < b.file ? -1 : 1)).map((f) => `${f.file} (${f.lines} lines)`);
}

/** One warning line per oversized file, for `npm test` and this script's output. */
export const oversizeWarnings = (): string[] => oversizedFiles().map((f) => `layers: warning: ${f} is over ${MAX_LINES} lines; split it by job`);

if (import.meta.main) {
  const r = checkLayers();
  for (const d of r.direction) process.stderr.write(`layers: ${d}\n`);
  for (const c of r.cycles) process.stderr.write(`layers: import cycle ${c} (move the shared types into a leaf module or core/protocol)\n`);
  process.stderr.write(`layers: ${r.direction.length} direction violations, ${r.cycles.length} import cycles\n`);
  // A warning only: the exit code is the import rules'.
  for (const w of oversizeWarnings()) process.stderr.write(`${w}\n`);
  process.exit(r.direction.length || r.cycles.length ? 1 : 0);
}
