// The effective state of usage counters, for `reasonix config telemetry` and
// `reasonix doctor`: the mode, the saved choice, whether an interactive chat
// and a headless run collect (and why not), what is queued, where it goes.
import { DEFAULT_TELEMETRY_ENDPOINT } from "./endpoint.ts";
import { pendingPayloads } from "./send.ts";
import { decide, telemetryConfig } from "./session.ts";
import { readState } from "./store.ts";

export interface TelemetrySummary {
  mode: string;
  choice: "yes" | "no" | null;
  chat: { collect: boolean; reason: string };
  run: { collect: boolean; reason: string };
  pending: number;
  endpoint: string;
}

export function telemetrySummary(home: string, values: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): TelemetrySummary {
  const cfg = telemetryConfig(values);
  const pick = ({ collect, reason }: { collect: boolean; reason: string }) => ({ collect, reason });
  return {
    mode: cfg.mode ?? "auto",
    choice: readState(home)?.choice ?? null,
    chat: pick(decide(home, cfg, "chat", true, env)),
    run: pick(decide(home, cfg, "run", false, env)),
    pending: pendingPayloads(home).length,
    endpoint: cfg.endpoint ?? DEFAULT_TELEMETRY_ENDPOINT,
  };
}

/** One line: "auto · you said yes · chat: collected · run: not collected (auto: …)". */
export function summaryLine(s: TelemetrySummary): string {
  const one = (d: { collect: boolean; reason: string }) => (d.collect ? "collected" : `not collected (${d.reason})`);
  const where = !s.chat.collect && !s.run.collect && s.chat.reason === s.run.reason ? one(s.chat) : `chat: ${one(s.chat)} · run: ${one(s.run)}`;
  return `${s.mode} · ${s.choice ? `you said ${s.choice}` : "not asked yet"} · ${where}${s.pending ? ` · ${s.pending} day records pending` : ""}`;
}
