/**
 * Recall: before a real user turn, the facts that bear on the message ride
 * along at the end of the USER message (never in the system prompt or the
 * tool block, so the cached prefix stays byte-identical). BM25 over the
 * facts (core/docs/bm25.ts), project facts before equivalent global ones,
 * stale facts down-ranked, at most MAX_FACTS facts and MAX_CHARS characters.
 * Every recall leaves a trace saying what it chose and why.
 */
import { Bm25, tokenize, type Bm25Part } from "../docs/bm25.ts";
import type { Fact } from "./fact.ts";
import type { MemoryStore } from "./store.ts";

export const MAX_FACTS = 4;
export const MAX_CHARS = 2400;
/** A fact not updated for this long is stale: still recalled, ranked lower. */
export const STALE_DAYS = 180;
const GLOBAL_FACTOR = 0.85;
const STALE_FACTOR = 0.5;
/** A hit far below the best one is noise, not a relevant fact. */
const RELATIVE_FLOOR = 0.35;
/** How many left-out facts a trace names. */
export const MAX_NAMED_LEFT_OUT = 10;

/** Words that carry no subject: a message made only of these is a generic turn. */
const FILLER = new Set(
  ("a an and are as at be but by can could do does for from go going have how i if in is it its keep me more my next no not now of ok okay on " +
    "or please proceed same so sure that the then there this to try until up us we what when which with yes yeah yep you your again also " +
    "continue carry resume thanks thank thx go ahead good great fine done right alright cool nice k lgtm let lets s t don should would will just")
    .split(" "),
);

export interface RecallPick {
  id: string;
  scope: Fact["scope"];
  type: Fact["type"];
  revision: number;
  score: number;
  /** The message's words the fact matched. */
  matched: string[];
  stale: boolean;
  updated: string;
  chars: number;
}

export interface RecallTrace {
  query: string;
  /** Why nothing was searched (a generic turn, no facts). */
  suppressed?: string;
  considered: number;
  /** Facts close enough to the best match to be candidates. */
  relevant: number;
  picked: RecallPick[];
  /** Relevant facts left out for the fact or character budget (the first MAX_NAMED_LEFT_OUT; `relevant` counts them all). */
  overBudget: string[];
  chars: number;
  budget: { facts: number; chars: number };
  /** The block appended to the user message ("" when nothing was recalled). */
  block: string;
}

/** The message's subject words; none means a generic turn ("continue", "ok go on"). */
export function subjectTerms(message: string): string[] {
  return [...new Set(tokenize(message).filter((t) => !FILLER.has(t) && !(t.length === 1 && !/\d/.test(t))))];
}

const isStale = (f: Fact, now: number) => now - Date.parse(f.updated) > STALE_DAYS * 86_400_000;

const factLine = (f: Fact, stale: boolean) => `- [${f.id} · ${f.type} · ${f.scope} · updated ${f.updated.slice(0, 10)}${stale ? " · may be outdated" : ""}]\n  ${f.text.replace(/\n/g, "\n  ")}`;

export function renderBlock(lines: string[]): string {
  if (!lines.length) return "";
  return [
    "<memory>",
    "Facts remembered from earlier sessions that may bear on this message. They can be outdated; the user's message and the files win.",
    ...lines,
    "</memory>",
  ].join("\n");
}

/** An index over one set of facts; rebuilt by Recaller when the facts change (from the store's per-folder statistics). */
class FactIndex {
  readonly bm25: Bm25;
  constructor(readonly facts: Fact[], parts: Bm25Part[]) {
    this.bm25 = new Bm25({ parts });
  }
}

/**
 * The index of each store's facts, shared by every Recaller of that store:
 * a new session of a running process (the serve, ACP, the chat's /new) finds
 * it built. The store hands back the same Fact objects until a file changes;
 * the first recall of a process starts from the store's on-disk index.
 */
const indexes = new WeakMap<MemoryStore, FactIndex>();

/** Recall for one session: the store's index (rebuilt when the facts change) and the last trace for `/memory recall`. */
export class Recaller {
  last?: RecallTrace;

  constructor(private readonly store: MemoryStore, private readonly clock: () => number = Date.now) {}

  private current(): FactIndex {
    const { facts, parts } = this.store.searchable();
    const index = indexes.get(this.store);
    if (index && index.facts.length === facts.length && index.facts.every((f, i) => f === facts[i])) return index;
    const fresh = new FactIndex(facts, parts);
    indexes.set(this.store, fresh);
    return fresh;
  }

  recall(message: string): RecallTrace {
    const budget = { facts: MAX_FACTS, chars: MAX_CHARS };
    const base = { query: message, considered: 0, relevant: 0, picked: [], overBudget: [], chars: 0, budget, block: "" };
    const terms = subjectTerms(message);
    if (!terms.length) return (this.last = { ...base, suppressed: "generic message (no subject words)" });
    let index: FactIndex;
    try {
      index = this.current();
    } catch (e) {
      // An unreadable memory folder costs the turn its facts, never the turn itself.
      return (this.last = { ...base, suppressed: `memory unreadable: ${e instanceof Error ? e.message : String(e)}` });
    }
    if (!index.facts.length) return (this.last = { ...base, suppressed: "no facts remembered" });
    const now = this.clock();
    const scored = index.bm25.score(terms).map(({ index: i, score, matched }) => {
      const f = index.facts[i]!;
      const stale = isStale(f, now);
      return { f, stale, matched, score: score * (f.scope === "global" ? GLOBAL_FACTOR : 1) * (stale ? STALE_FACTOR : 1) };
    });
    let top = 0;
    for (const r of scored) if (r.score > top) top = r.score;
    // Ties: project before global, then by id (a plain comparison: thousands of hits may tie).
    const ranked = scored
      .filter((r) => r.score >= top * RELATIVE_FLOOR)
      .sort((a, b) => b.score - a.score || (a.f.scope === b.f.scope ? (a.f.id < b.f.id ? -1 : a.f.id > b.f.id ? 1 : 0) : a.f.scope === "project" ? -1 : 1));
    const picked: RecallPick[] = [];
    const lines: string[] = [];
    const overBudget: string[] = [];
    let chars = 0;
    const seen = new Set<string>();
    for (const r of ranked) {
      if (picked.length >= MAX_FACTS) {
        // Name the next few left out; the rest only counts.
        if (overBudget.length < MAX_NAMED_LEFT_OUT) overBudget.push(r.f.id);
        else break;
        continue;
      }
      // The same text in both scopes: the project's copy stands for both.
      const key = r.f.text.trim().toLowerCase();
      if (seen.has(key)) continue;
      const line = factLine(r.f, r.stale);
      if (chars + line.length + 1 > MAX_CHARS) {
        if (overBudget.length < MAX_NAMED_LEFT_OUT) overBudget.push(r.f.id);
        continue;
      }
      seen.add(key);
      lines.push(line);
      chars += line.length + 1;
      picked.push({ id: r.f.id, scope: r.f.scope, type: r.f.type, revision: r.f.revision, score: Math.round(r.score * 1000) / 1000, matched: r.matched, stale: r.stale, updated: r.f.updated, chars: line.length });
    }
    const relevant = ranked.length;
    return (this.last = { ...base, considered: index.facts.length, relevant, picked, overBudget, chars, block: renderBlock(lines) });
  }
}
