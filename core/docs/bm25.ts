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
 * Okapi BM25 over any documents given as weighted text fields (doc sections,
 * memory facts). Postings per term, so a query touches only the documents
 * that hold one of its terms.
 */
export class Bm25 {
  private readonly postings = new Map<string, { docs: number[]; tfs: number[] }>();
  private readonly lens: Float64Array;
  private readonly avgLen: number;

  constructor(fields: [text: string, weight: number][][]) {
    this.lens = new Float64Array(fields.length);
    let total = 0;
    fields.forEach((doc, i) => {
      const tf = new Map<string, number>();
      for (const [text, w] of doc) for (const t of tokenize(text)) tf.set(t, (tf.get(t) ?? 0) + w);
      let len = 0;
      for (const [t, v] of tf) {
        len += v;
        let p = this.postings.get(t);
        if (!p) this.postings.set(t, (p = { docs: [], tfs: [] }));
        p.docs.push(i);
        p.tfs.push(v);
      }
      this.lens[i] = len;
      total += len;
    });
    this.avgLen = fields.length ? total / fields.length : 1;
  }

  get size(): number {
    return this.lens.length;
  }

  /** Every document with a positive score for these (distinct) terms: its index, score and the terms it matched. */
  score(terms: string[]): { index: number; score: number; matched: string[] }[] {
    const n = this.lens.length;
    const scores = new Map<number, { score: number; matched: string[] }>();
    for (const t of terms) {
      const p = this.postings.get(t);
      if (!p) continue;
      const df = p.docs.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let k = 0; k < df; k++) {
        const d = p.docs[k]!;
        const f = p.tfs[k]!;
        const add = (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * this.lens[d]!) / this.avgLen));
        const cur = scores.get(d);
        if (cur) {
          cur.score += add;
          cur.matched.push(t);
        } else scores.set(d, { score: add, matched: [t] });
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
