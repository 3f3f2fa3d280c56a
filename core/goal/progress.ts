/**
 * Novelty-based progress. A goal advances when a round (one model step and
 * its tool calls) produces something new: a tool result never seen before
 * for that exact call (new read/search results, mutations, verification
 * runs, sign-offs), or a changed todo list. An exact repeat — same tool,
 * same arguments, same result — is not progress, and neither is a failed
 * call. `stallRounds` rounds in a row without progress fire onStall (the
 * driver injects a strategy redirect) and start a new epoch.
 */
import type { EngineEvent, TodoItem } from "../engine/types.ts";

/** Tools that report rather than work: never progress by themselves. */
const REPORTING = new Set(["update_goal"]);

/** JSON with sorted keys, so {a,b} and {b,a} are the same call. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

interface Round {
  calls: number;
  results: number;
  progress: boolean;
}

export class ProgressTracker {
  private readonly seen = new Set<string>();
  private readonly calls = new Map<string, { name: string; input: string }>();
  private todos = "[]";
  private round: Round | null = null;
  /** Rounds in a row without progress in this epoch. */
  stalled = 0;
  /** Rounds that made progress (for tests and status). */
  progressRounds = 0;

  constructor(
    private readonly stallRounds: number,
    private readonly onStall: (rounds: number) => void,
  ) {}

  /** Remember what an earlier part of the goal already saw (resume), without counting rounds. */
  learn(e: EngineEvent): void {
    if (e.type === "tool_call") this.calls.set(e.callId, { name: e.name, input: stableJson(e.input) });
    else if (e.type === "tool_result") {
      const c = this.calls.get(e.callId);
      if (c && e.ok) this.seen.add(this.key(c.name, c.input, e.output));
    } else if (e.type === "todo") this.todos = stableJson(e.items);
  }

  /** Follow a live goal turn. */
  observe(e: EngineEvent): void {
    switch (e.type) {
      case "assistant":
        this.close();
        this.round = { calls: 0, results: 0, progress: false };
        break;
      case "tool_call":
        this.learn(e);
        if (this.round) this.round.calls++;
        break;
      case "todo": {
        const next = stableJson(e.items as TodoItem[]);
        if (next !== this.todos && this.round) this.round.progress = true;
        this.todos = next;
        break;
      }
      case "tool_result": {
        const c = this.calls.get(e.callId);
        if (c && e.ok && !REPORTING.has(c.name)) {
          const k = this.key(c.name, c.input, e.output);
          if (!this.seen.has(k) && this.round) this.round.progress = true;
          this.seen.add(k);
        }
        if (this.round && ++this.round.results >= this.round.calls) this.close();
        break;
      }
      case "turn_end":
        this.close();
        break;
    }
  }

  /** A new intervention epoch (after a redirect or a resume). */
  resetEpoch(): void {
    this.stalled = 0;
  }

  private key(name: string, input: string, output: string): string {
    return `${name}\u0000${input}\u0000${output}`;
  }

  private close(): void {
    const r = this.round;
    this.round = null;
    if (!r) return;
    if (r.progress) {
      this.progressRounds++;
      this.stalled = 0;
      return;
    }
    if (++this.stalled >= this.stallRounds) {
      const n = this.stalled;
      this.stalled = 0;
      this.onStall(n);
    }
  }
}
