// The import graph of the repository's TypeScript: every static, type-only,
// re-export, dynamic and `import("…")` type reference, read with the
// TypeScript preprocessor (comments and strings are not imports).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export const repoRoot = resolve(import.meta.dir, "..", "..");

export interface ImportEdge {
  /** What the file wrote, e.g. "../engine/types.ts" or "node:fs". */
  spec: string;
  /** The repository file it resolves to (relative to the root, "/"-separated); absent for packages. */
  to?: string;
}

const SOURCE = /\.(ts|tsx)$/;

/** Source files under `dirs` (relative to the root), tests included unless `tests` is false. */
export function sourceFiles(dirs: string[], opts: { tests?: boolean } = {}): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(join(repoRoot, d))) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const rel = `${d}/${name}`;
      if (statSync(join(repoRoot, rel)).isDirectory()) {
        if (opts.tests === false && name === "tests") continue;
        walk(rel);
      } else if (SOURCE.test(name) && !name.endsWith(".d.ts") && !(opts.tests === false && /\.test\.tsx?$/.test(name))) out.push(rel);
    }
  };
  for (const d of dirs) walk(d);
  return out.sort();
}

function resolveSpec(from: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  const base = join(dirname(join(repoRoot, from)), spec);
  for (const cand of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    if (existsSync(cand) && statSync(cand).isFile()) return relative(repoRoot, cand).split("\\").join("/");
  }
  return undefined;
}

/** The imports of one file (relative to the root); an unresolvable relative import keeps `to` absent. */
export function importsOf(file: string): ImportEdge[] {
  return importsIn(readFileSync(join(repoRoot, file), "utf8"), file);
}

/** The imports written in `text`, resolved as if it were `file`. */
export function importsIn(text: string, file: string): ImportEdge[] {
  const seen = new Set<string>();
  const out: ImportEdge[] = [];
  for (const f of ts.preProcessFile(text, true, true).importedFiles) {
    if (seen.has(f.fileName)) continue;
    seen.add(f.fileName);
    out.push({ spec: f.fileName, to: resolveSpec(file, f.fileName) });
  }
  return out;
}

/** file → the repository files it imports. */
export function importGraph(files: string[]): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of files) g.set(f, [...new Set(importsOf(f).flatMap((e) => (e.to ? [e.to] : [])))]);
  return g;
}

const NODE_BUILTINS = new Set(builtinModules);

/** A module only Node or Bun has: node:*, bun, bun:*, or a bare Node builtin ("fs"). */
export const isRuntimeModule = (spec: string) => spec.startsWith("node:") || spec === "bun" || spec.startsWith("bun:") || NODE_BUILTINS.has(spec.split("/")[0]!);

/** Every Node or Bun import reachable from `entries` through the repository's files, as "file: spec". */
export function runtimeImportsReachable(entries: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const f = queue.shift()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const e of importsOf(f)) {
      if (e.to) queue.push(e.to);
      else if (isRuntimeModule(e.spec)) out.push(`${f}: ${e.spec}`);
    }
  }
  return out;
}

/** Strongly connected components with more than one file, or a file importing itself: the import cycles. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** One path around a cycle, for a readable message: a → b → … → a. */
export function cyclePath(graph: Map<string, string[]>, scc: string[]): string[] {
  const inScc = new Set(scc);
  const start = scc[0]!;
  // Breadth-first from start back to start inside the component.
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inScc.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let x: string | undefined = v; x && x !== start; x = prev.get(x)) path.splice(1, 0, x);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return scc;
}
