// Session events reduced to the fixed buckets of schema.ts. Only the bucket a
// thing falls in is kept — never a prompt, text, tool name, path, model or
// exact number — so nothing else can reach a payload.
import type { EngineEvent } from "../protocol/events.ts";
import type { TurnEndReason } from "../protocol/turn.ts";
import { COUNTER_BUCKETS, MAX_COUNT, UI_LANGUAGES, type TelemetryPayload } from "./schema.ts";

type Family = keyof typeof COUNTER_BUCKETS;
type Bucket<F extends Family> = (typeof COUNTER_BUCKETS)[F][number];

const FINISH: Record<TurnEndReason, Bucket<"finish_reason">> = {
  done: "stop", empty: "stop", length: "length", max_steps: "tool_calls", content_filter: "content_filter",
  refusal: "refusal", error: "error", cancelled: "interrupted", denied: "interrupted", needs_user: "interrupted",
};

export const latencyBucket = (ms: number): Bucket<"turn_latency"> =>
  ms < 1000 ? "lt1s" : ms < 5000 ? "1to5s" : ms < 15_000 ? "5to15s" : ms < 60_000 ? "15to60s" : "gt60s";

export const cacheBucket = (pct: number): Bucket<"cache_hit"> =>
  !(pct > 0) ? "0" : pct <= 25 ? "1to25" : pct <= 50 ? "26to50" : pct <= 75 ? "51to75" : "76to100";

/** The class of a provider failure from its message; the message itself is never kept. */
export function providerErrorClass(text: string): Bucket<"provider_error"> {
  const t = text.toLowerCase();
  if (/\b(401|403)\b|unauthori[sz]ed|forbidden|api key|authentication/.test(t)) return "auth";
  if (/\b429\b|rate.?limit|too many requests|quota/.test(t)) return "rate_limit";
  if (/timed? ?out|timeout|no (first )?byte|silent/.test(t)) return "timeout";
  if (/\b5\d\d\b|server error|overloaded|unavailable/.test(t)) return "server";
  if (/econn|enotfound|network|socket|fetch failed|connection|dns/.test(t)) return "network";
  if (/\b4\d\d\b|bad request|invalid/.test(t)) return "bad_request";
  return "other";
}

const toolErrorClass = (output: string): Bucket<"tool_error"> => {
  const t = output.toLowerCase();
  return /timed? ?out|timeout/.test(t) ? "timeout" : /denied|not allowed|refused/.test(t) ? "denied" : "failed";
};

/** The UI language from the locale variables, reduced to the allow-list. */
export function uiLanguage(env: NodeJS.ProcessEnv = process.env): (typeof UI_LANGUAGES)[number] {
  const raw = (env.LC_ALL || env.LC_MESSAGES || env.LANG || "en").toLowerCase();
  const two = raw.slice(0, 2);
  if (raw === "c" || raw.startsWith("c.") || raw === "posix") return "en";
  return (UI_LANGUAGES as readonly string[]).includes(two) ? (two as (typeof UI_LANGUAGES)[number]) : "other";
}

/** What the counters read of a session they follow: its id (never kept), earlier turns, what opening it repaired. */
export interface CountedSession {
  readonly id: string;
  readonly recovered?: { readonly interruptedTools: number };
  history(): readonly EngineEvent[];
  subscribe(listener: (e: EngineEvent) => void): () => void;
}

/** Where one session's turn started (turns of several sessions may overlap in serve or ACP). */
interface TurnClock { startedAt: number | undefined }

export class UsageCounters {
  readonly counts: TelemetryPayload["counters"] = {};
  private readonly clock: TurnClock = { startedAt: undefined };
  /** Sessions already counted as opened in this process (a model switch reopens the same one). */
  private readonly opened = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {}

  bump<F extends Family>(family: F, bucket: Bucket<F>): void {
    const f = ((this.counts as Record<string, Record<string, number>>)[family] ??= {});
    f[bucket] = Math.min((f[bucket] ?? 0) + 1, MAX_COUNT);
  }

  get empty(): boolean {
    return Object.keys(this.counts).length === 0;
  }

  /**
   * A session this process opened: a conversation with earlier turns counts
   * as recovery.resume, and each tool call a stopped process left unanswered
   * as recovery.interrupted_tool — once per session per process.
   */
  sessionOpened(s: Pick<CountedSession, "id" | "recovered" | "history">): void {
    if (this.opened.has(s.id)) return;
    this.opened.add(s.id);
    if (s.history().some((e) => e.type === "turn_end")) this.bump("recovery", "resume");
    for (let i = 0; i < (s.recovered?.interruptedTools ?? 0); i++) this.bump("recovery", "interrupted_tool");
  }

  /** sessionOpened, then this session's events (with its own turn clock); returns the way to stop. */
  follow(s: CountedSession): () => void {
    this.sessionOpened(s);
    const clock: TurnClock = { startedAt: undefined };
    return s.subscribe((e) => this.observe(e, clock));
  }

  observe(e: EngineEvent, clock: TurnClock = this.clock): void {
    switch (e.type) {
      case "turn_start":
        clock.startedAt = this.now();
        break;
      case "turn_end":
        if (clock.startedAt !== undefined) this.bump("turn_latency", latencyBucket(this.now() - clock.startedAt));
        clock.startedAt = undefined;
        this.bump("finish_reason", FINISH[e.reason] ?? "error");
        if (e.reason === "error" && e.error) this.bump("provider_error", providerErrorClass(e.error));
        break;
      case "usage":
        if (!e.role) this.bump("cache_hit", cacheBucket(e.cacheHitPercent));
        break;
      case "retry":
        this.bump("recovery", "retry");
        this.bump("provider_error", providerErrorClass(e.reason));
        break;
      case "tool_result":
        if (!e.ok) this.bump("tool_error", toolErrorClass(e.output));
        break;
      case "compaction":
        this.bump("compaction", e.trigger === "manual" ? "manual" : "auto");
        break;
    }
  }
}

/**
 * A front end that holds one session at a time (the chat): count its session
 * as opened now and every one that replaces it (/new, /resume, a model switch).
 */
export function countHost(counters: UsageCounters, host: { session: CountedSession; watch(l: (next: CountedSession) => void): unknown }): void {
  counters.sessionOpened(host.session);
  host.watch((next) => counters.sessionOpened(next));
}
