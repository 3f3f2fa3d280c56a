/** Symbol search and the text code_index shows the model. */
import type { CodeSymbol } from "./extract.ts";
import type { IndexedFile } from "./store.ts";

export interface Hit {
  file: IndexedFile;
  sym: CodeSymbol;
  /** Lower is better. */
  score: number;
}

/** Declarations before members before values when the match itself ties. */
const KIND_RANK: Record<string, number> = {
  class: 0, interface: 0, struct: 0, trait: 0, enum: 0, type: 1, union: 1, function: 1, namespace: 2, module: 2, macro: 2,
  method: 3, impl: 4, const: 5, property: 6, variable: 6,
};

export const qualified = (s: CodeSymbol): string => (s.container ? `${s.container}.${s.name}` : s.name);

/**
 * How well NAME matches QUERY (lowercased in `q`), or -1: exact 0,
 * case-insensitive exact 1, prefix 2, at a word boundary (camelCase, _ or .)
 * 3, anywhere 4, the query's letters in order 5.
 */
export function matchScore(name: string, query: string, q: string, lower = name.toLowerCase(), fuzzy = true): number {
  if (name === query) return 0;
  if (lower === q) return 1;
  if (lower.startsWith(q)) return 2;
  const at = lower.indexOf(q);
  if (at > 0) {
    for (let i = at; i >= 0; i = lower.indexOf(q, i + 1)) {
      const prev = name[i - 1]!;
      const cur = name[i]!;
      if (prev === "_" || prev === "." || prev === ":" || (cur >= "A" && cur <= "Z" && !(prev >= "A" && prev <= "Z"))) return 3;
    }
    return 4;
  }
  // Subsequence ("hndlr" finds "handler"), only for queries of 3+ characters.
  if (!fuzzy || q.length < 3) return -1;
  let j = 0;
  for (let i = 0; i < lower.length && j < q.length; i++) if (lower[i] === q[j]) j++;
  return j === q.length ? 5 : -1;
}

const byRank = (a: Hit, b: Hit) =>
  a.score - b.score ||
  (KIND_RANK[a.sym.kind] ?? 9) - (KIND_RANK[b.sym.kind] ?? 9) ||
  a.sym.name.length - b.sym.name.length ||
  (a.file.rel < b.file.rel ? -1 : a.file.rel > b.file.rel ? 1 : 0) ||
  a.sym.line - b.sym.line;

/** Lowercased symbol names per file entry (an entry is replaced, never changed, when its file changes). */
const lowered = new WeakMap<object, string[]>();
function lowerNames(file: IndexedFile): string[] {
  let l = lowered.get(file.entry);
  if (!l) lowered.set(file.entry, (l = file.entry.symbols.map((s) => s.name.toLowerCase())));
  return l;
}

/**
 * Symbols matching QUERY (a name, part of one, or Container.name), best first.
 * Letters-in-order matches rank last, so they are looked for only while fewer
 * than FUZZY_BELOW better matches were found (0: never).
 */
export function searchSymbols(files: IndexedFile[], query: string, fuzzyBelow = Infinity): Hit[] {
  const q = query.toLowerCase();
  const dotted = query.includes(".") || query.includes("::");
  const want = query.replace(/::/g, ".");
  const wantLower = want.toLowerCase();
  const pass = (fuzzy: boolean, out: Hit[]) => {
    for (const file of files) {
      const lower = lowerNames(file);
      for (let i = 0; i < lower.length; i++) {
        const sym = file.entry.symbols[i]!;
        let score = matchScore(sym.name, query, q, lower[i], fuzzy);
        if (dotted && sym.container) {
          const s = matchScore(qualified(sym), want, wantLower, undefined, fuzzy);
          if (s >= 0 && (score < 0 || s < score)) score = s;
        }
        if (fuzzy ? score === 5 : score >= 0) out.push({ file, sym, score });
      }
    }
  };
  const hits: Hit[] = [];
  pass(false, hits);
  if (hits.length < fuzzyBelow && q.length >= 3) pass(true, hits);
  return hits.sort(byRank);
}

/** Definitions of NAME: exact (Container.name allowed), else the same name in another case. */
export function findDefinitions(files: IndexedFile[], name: string): Hit[] {
  const want = name.replace(/::/g, ".");
  const lower = want.toLowerCase();
  const hits = searchSymbols(files, name, 0).filter((h) => h.score <= 1 || qualified(h.sym).toLowerCase() === lower);
  const exact = hits.filter((h) => h.sym.name === want || qualified(h.sym) === want);
  return exact.length > 0 ? exact : hits;
}

export function symbolLine(h: Hit): string {
  return `${h.file.rel}:${h.sym.line}: ${h.sym.kind} ${qualified(h.sym)}`;
}

/** One file's outline: `line: kind name`, members indented under their container (named where it is not the enclosing line, as for Go methods). */
export function outlineLines(file: IndexedFile, indent = ""): string[] {
  return file.entry.symbols.map((s) => `${indent}${s.line}: ${"  ".repeat(s.depth)}${s.kind} ${s.depth === 0 ? qualified(s) : s.name}`);
}

/** Lines FROM..TO (1-based, inclusive) of TEXT, numbered, the declaration line marked with `>`. */
export function excerpt(text: string, from: number, to: number, mark: number): string[] {
  const lines = text.split("\n");
  const out: string[] = [];
  const width = String(Math.min(to, lines.length)).length;
  for (let n = Math.max(1, from); n <= Math.min(to, lines.length); n++) {
    const l = lines[n - 1]!.replace(/\r$/, "");
    out.push(`${n === mark ? ">" : " "}${String(n).padStart(width)}| ${l.length > 300 ? `${l.slice(0, 300)}…` : l}`);
  }
  return out;
}
