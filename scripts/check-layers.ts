// The direction of imports (`bun scripts/check-layers.ts`; run by `npm test`
// through scripts/tests/layers.test.ts):
//   cli → remote → core; core never imports cli or remote; remote never imports cli;
//   core/protocol (browser-safe) imports nothing outside itself;
//   no import cycles, type-only imports included.
// Tests are checked for the direction too, not for cycles among themselves.
import { cyclePath, cycles, importGraph, importsOf, sourceFiles } from "./lib/imports.ts";

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

if (import.meta.main) {
  const r = checkLayers();
  for (const d of r.direction) process.stderr.write(`layers: ${d}\n`);
  for (const c of r.cycles) process.stderr.write(`layers: import cycle ${c} (move the shared types into a leaf module or core/protocol)\n`);
  process.stderr.write(`layers: ${r.direction.length} direction violations, ${r.cycles.length} import cycles\n`);
  process.exit(r.direction.length || r.cycles.length ? 1 : 0);
}
