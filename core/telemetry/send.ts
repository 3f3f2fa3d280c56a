// The daily ping: every pending day record that passes the allow-list, as one
// JSON array POSTed to `[telemetry] endpoint`, at most once per UTC day, with
// a short timeout. Failures are silent (the records stay queued); nothing is
// printed, whatever happens.
import { validatePayload, type TelemetryPayload } from "./schema.ts";
import { clearQueue, markPinged, readQueue, readState, utcDay } from "./store.ts";

export { DEFAULT_TELEMETRY_ENDPOINT } from "./endpoint.ts";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** https anywhere, plain http only to this machine; undefined for anything else. */
export function telemetryUrl(raw: string): URL | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.has(url.hostname)) ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Exactly what a ping would send now: the queued records that pass the allow-list. */
export function pendingPayloads(home: string): TelemetryPayload[] {
  return readQueue(home).filter((p) => validatePayload(p).length === 0);
}

export type PingResult = "sent" | "not-due" | "nothing" | "failed";

/** Ping once today if the saved choice is yes and something is queued. Never throws. */
export async function pingIfDue(home: string, endpoint: string, timeoutMs: number, now = new Date()): Promise<PingResult> {
  try {
    const state = readState(home);
    if (state?.choice !== "yes") return "nothing";
    const day = utcDay(now);
    if (state.last_ping === day) return "not-due";
    const url = telemetryUrl(endpoint);
    const payloads = pendingPayloads(home);
    if (!url || payloads.length === 0) return "nothing";
    // Counted before sending: a ping that hangs or fails still uses up the day.
    markPinged(home, day);
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payloads),
      redirect: "error",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status < 200 || res.status > 299) return "failed";
    clearQueue(home);
    return "sent";
  } catch {
    return "failed";
  }
}
