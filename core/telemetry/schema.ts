// The only shape usage counters may leave the machine in (issue 31): an
// allow-list of fields, each a fixed enum, a bounded count or a strict
// pattern. validatePayload names every field or value outside it; a sender
// must refuse to send anything it does not accept (send.ts and store.ts do).

/** Counter families and the only buckets each may have. */
export const COUNTER_BUCKETS = {
  turn_latency: ["lt1s", "1to5s", "5to15s", "15to60s", "gt60s"],
  finish_reason: ["stop", "length", "tool_calls", "content_filter", "refusal", "error", "interrupted"],
  cache_hit: ["0", "1to25", "26to50", "51to75", "76to100"],
  provider_error: ["auth", "rate_limit", "timeout", "server", "network", "bad_request", "other"],
  tool_error: ["timeout", "denied", "failed", "other"],
  compaction: ["auto", "manual"],
  recovery: ["retry", "resume", "interrupted_tool"],
} as const satisfies Record<string, readonly string[]>;

export const SURFACES = ["chat", "run", "serve", "acp", "mcp-serve", "remote"] as const;
export const OSES = ["linux", "darwin", "windows", "freebsd"] as const;
export const ARCHES = ["x64", "arm64"] as const;
export const UI_LANGUAGES = ["en", "zh", "ja", "ko", "de", "fr", "es", "pt", "ru", "other"] as const;
/** A day's count in one bucket never exceeds this (a bound, not a sample). */
export const MAX_COUNT = 100_000;

export interface TelemetryPayload {
  schema: 1;
  install_id: string;
  version: string;
  os: (typeof OSES)[number];
  arch: (typeof ARCHES)[number];
  surface: (typeof SURFACES)[number];
  ui_language: (typeof UI_LANGUAGES)[number];
  /** UTC day the counters cover, YYYY-MM-DD. */
  day: string;
  counters: { [F in keyof typeof COUNTER_BUCKETS]?: { [B in (typeof COUNTER_BUCKETS)[F][number]]?: number } };
}

const TOP: Record<string, (v: unknown) => boolean> = {
  schema: (v) => v === 1,
  install_id: (v) => typeof v === "string" && /^[0-9a-f]{32}$/.test(v),
  version: (v) => typeof v === "string" && /^\d{1,4}\.\d{1,4}\.\d{1,4}(?:-(?:alpha|beta|rc)\.\d{1,4})?$/.test(v),
  os: (v) => (OSES as readonly unknown[]).includes(v),
  arch: (v) => (ARCHES as readonly unknown[]).includes(v),
  surface: (v) => (SURFACES as readonly unknown[]).includes(v),
  ui_language: (v) => (UI_LANGUAGES as readonly unknown[]).includes(v),
  day: (v) => typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v),
  counters: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
};

const isCount = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_COUNT;

/** Every violation of the allow-list, as `field: why`; empty means the payload may be sent. */
export function validatePayload(p: unknown): string[] {
  if (typeof p !== "object" || p === null || Array.isArray(p)) return ["payload: not an object"];
  const errors: string[] = [];
  const obj = p as Record<string, unknown>;
  for (const k of Object.keys(obj)) if (!(k in TOP)) errors.push(`${k}: not an allowed field`);
  for (const [k, ok] of Object.entries(TOP)) if (!ok(obj[k])) errors.push(`${k}: missing or not an allowed value`);
  if (!errors.some((e) => e.startsWith("counters:"))) {
    for (const [family, buckets] of Object.entries(obj.counters as Record<string, unknown>)) {
      const allowed = (COUNTER_BUCKETS as Record<string, readonly string[]>)[family];
      if (!allowed) { errors.push(`counters.${family}: not an allowed counter`); continue; }
      if (typeof buckets !== "object" || buckets === null || Array.isArray(buckets)) { errors.push(`counters.${family}: not an object`); continue; }
      for (const [b, n] of Object.entries(buckets)) {
        if (!allowed.includes(b)) errors.push(`counters.${family}.${b}: not an allowed bucket`);
        else if (!isCount(n)) errors.push(`counters.${family}.${b}: not a count in 0..${MAX_COUNT}`);
      }
    }
  }
  return errors;
}
