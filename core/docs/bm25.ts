import type { DocSection } from "./sections.ts";

export interface SearchHit {
  path: string;
  heading: string;
  anchor: string;
  score: number;
  snippet: string;
}

export const tokenize = (s: string): string[] => s.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

const K1 = 1.2;
const B = 0.75;
// A word in a heading says more about the section than one in its body.
const HEADING_WEIGHT = 3;

/**
 * The statistics of one set of documents, plain data (a cache can keep it as
 * JSON): each document's length, and per term the documents holding it as
 * [doc, tf, doc, tf, …] (doc numbers local to the part).
 */
export interface Bm25Part {
  lens: number[];
  postings: Record<string, number[]>;
}

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

export function bm25Part(fields: [text: string, weight: number][][]): Bm25Part {
  const postings: Record<string, number[]> = Object.create(null);
  const lens: number[] = [];
  fields.forEach((doc, i) => {
    const tf = new Map<string, number>();
    for (const [text, w] of doc) for (const t of tokenize(text)) tf.set(t, (tf.get(t) ?? 0) + w);
    let len = 0;
    for (const [t, v] of tf) {
      len += v;
      (postings[t] ??= []).push(i, v);
    }
    lens.push(len);
  });
  return { lens, postings };
}

/**
 * A part read back from a cache: the right shape (each document's length
 * present). Postings are checked as a query reads them (score skips an entry
 * that is not a document of the part), so a load never walks them all.
 */
export function isBm25Part(x: unknown, docs: number): x is Bm25Part {
  if (!x || typeof x !== "object") return false;
  const { lens, postings } = x as Bm25Part;
  if (!Array.isArray(lens) || lens.length !== docs) return false;
  for (let i = 0; i < docs; i++) if (!(lens[i]! >= 0)) return false;
  return !!postings && typeof postings === "object" && !Array.isArray(postings);
}

/** A term's postings in a part, if it has any well-formed ones. */
const postingsOf = (part: Bm25Part, t: string): number[] | undefined => {
  const p = own(part.postings, t) ? part.postings[t] : undefined;
  return Array.isArray(p) && p.length % 2 === 0 ? p : undefined;
};

/**
 * Okapi BM25 over any documents given as weighted text fields (doc sections,
 * memory facts), or over parts built earlier: documents are
 * numbered across the parts in order. Postings per term, so a query touches
 * only the documents that hold one of its terms.
 */
export class Bm25 {
  private readonly parts: { base: number; part: Bm25Part }[] = [];
  private readonly n: number = 0;
  private readonly avgLen: number;

  /** Over documents given as weighted text fields, or over parts built earlier (`bm25Part`). */
  constructor(docs: [text: string, weight: number][][] | { parts: Bm25Part[] }) {
    let total = 0;
    for (const part of Array.isArray(docs) ? [bm25Part(docs)] : docs.parts) {
      this.parts.push({ base: this.n, part });
      this.n += part.lens.length;
      for (const l of part.lens) total += l;
    }
    this.avgLen = this.n ? total / this.n : 1;
  }

  get size(): number {
    return this.n;
  }

  /** Every document with a positive score for these (distinct) terms: its index, score and the terms it matched. */
  score(terms: string[]): { index: number; score: number; matched: string[] }[] {
    const n = this.n;
    const scores = new Map<number, { score: number; matched: string[] }>();
    for (const t of terms) {
      // Each part's postings for the term, looked up once: their total is the term's document frequency.
      const found = this.parts.map(({ part }) => postingsOf(part, t));
      const df = found.reduce((a, p) => a + (p?.length ?? 0) / 2, 0);
      if (!df) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const [i, { base, part }] of this.parts.entries()) {
        const p = found[i];
        if (!p) continue;
        for (let k = 0; k < p.length; k += 2) {
          const doc = p[k]!;
          const f = p[k + 1]!;
          if (!Number.isInteger(doc) || doc < 0 || doc >= part.lens.length || !(f > 0)) continue;
          const add = (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * part.lens[doc]!) / this.avgLen));
          const d = base + doc;
          const cur = scores.get(d);
          if (cur) {
            cur.score += add;
            cur.matched.push(t);
          } else scores.set(d, { score: add, matched: [t] });
        }
      }
    }
    const out: { index: number; score: number; matched: string[] }[] = [];
    for (const [index, v] of scores) if (v.score > 0) out.push({ index, score: v.score, matched: v.matched });
    return out.sort((a, b) => a.index - b.index);
  }
}

/** BM25 over doc sections; built once per process (the corpus is small). */
export class Bm25Index {
  private readonly bm25: Bm25;

  constructor(private readonly sections: DocSection[]) {
    this.bm25 = new Bm25(sections.map((s) => [[s.heading, HEADING_WEIGHT], [s.text, 1]]));
  }

  search(query: string, limit = 10): SearchHit[] {
    const terms = [...new Set(tokenize(query))];
    const hits = this.bm25.score(terms).map(({ index, score }) => {
      const s = this.sections[index]!;
      return { path: s.path, heading: s.heading, anchor: s.anchor, score: Math.round(score * 1000) / 1000, snippet: snippet(s.text, terms) };
    });
    return hits.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path)).slice(0, limit);
  }
}

/** ~160 characters of body text around the first query term. */
export function snippet(text: string, terms: string[], width = 160): string {
  const flat = text.replace(/```[\s\S]*?```/g, " ").replace(/\s+/g, " ").trim();
  const lower = flat.toLowerCase();
  let at = -1;
  for (const t of terms) {
    const i = lower.search(new RegExp(`(?<![\\p{L}\\p{N}_])${t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "u"));
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  const start = Math.max(0, (at < 0 ? 0 : at) - width / 3);
  const cut = flat.slice(start, start + width);
  return `${start > 0 ? "…" : ""}${cut}${start + width < flat.length ? "…" : ""}`;
}
