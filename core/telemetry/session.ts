// What a front end holds for one process: the decision, the counters it
// feeds with session events, and finish() — at exit, the counters join the
// local queue and a ping goes out if one is due, within a bounded wait.
// Nothing here runs on the startup path or prints anything.
import { ARCHES, OSES, SURFACES, type TelemetryPayload } from "./schema.ts";
import { devBuild, telemetryDecision, type TelemetryDecision, type TelemetrySetting } from "./mode.ts";
import { DEFAULT_TELEMETRY_ENDPOINT } from "./endpoint.ts";
import { pingIfDue } from "./send.ts";
import { addToQueue, readState, utcDay } from "./store.ts";
import { UsageCounters, uiLanguage } from "./counters.ts";
import { buildInfo } from "../version.ts";

export interface TelemetryConfig {
  mode?: TelemetrySetting;
  endpoint?: string;
}

/** `[telemetry]` of the loaded config values (user config only: see schema userOnlySections). */
export const telemetryConfig = (values: Record<string, unknown>): TelemetryConfig => (values.telemetry ?? {}) as TelemetryConfig;

export function decide(home: string, cfg: TelemetryConfig, surface: string, interactive: boolean, env: NodeJS.ProcessEnv = process.env): TelemetryDecision {
  return telemetryDecision({ setting: cfg.mode, choice: readState(home)?.choice, env, devBuild: devBuild(env), surface, interactive });
}

/** The payload for COUNTS, or undefined when this platform or surface is outside the allow-list. */
export function dayRecord(installId: string, surface: string, counts: TelemetryPayload["counters"], now = new Date()): TelemetryPayload | undefined {
  const os = process.platform === "win32" ? "windows" : process.platform;
  if (!(OSES as readonly string[]).includes(os) || !(ARCHES as readonly string[]).includes(process.arch) || !(SURFACES as readonly string[]).includes(surface)) return undefined;
  return {
    schema: 1,
    install_id: installId,
    version: buildInfo().version,
    os: os as TelemetryPayload["os"],
    arch: process.arch as TelemetryPayload["arch"],
    surface: surface as TelemetryPayload["surface"],
    ui_language: uiLanguage(),
    day: utcDay(now),
    counters: counts,
  };
}

export class TelemetrySession {
  decision: TelemetryDecision;

  /** COUNTERS may have been filled before (a front end that loads this module only at exit). */
  constructor(
    readonly home: string,
    readonly cfg: TelemetryConfig,
    readonly surface: string,
    readonly interactive: boolean,
    readonly counters = new UsageCounters(),
  ) {
    this.decision = decide(home, cfg, surface, interactive);
  }

  /** Decide again (after the one-time question was answered). */
  refresh(): void {
    this.decision = decide(this.home, this.cfg, this.surface, this.interactive);
  }

  /** Queue this process's counters and ping if due, waiting at most WAITMS. Never throws, never prints. */
  async finish(waitMs = 1500): Promise<void> {
    try {
      this.refresh();
      if (!this.decision.collect) return;
      const state = readState(this.home);
      if (!state) return;
      const record = this.counters.empty ? undefined : dayRecord(state.install_id, this.surface, this.counters.counts);
      if (record) addToQueue(this.home, record);
      await pingIfDue(this.home, this.cfg.endpoint ?? DEFAULT_TELEMETRY_ENDPOINT, waitMs);
    } catch {
      // Usage counters must never change what the user sees.
    }
  }
}

/**
 * At the exit of a front end other than the chat and run (serve, acp,
 * mcp-serve, remote): read [telemetry] from the user config, decide as a
 * non-interactive surface (so only mode = on collects) and finish. Never
 * throws, never prints.
 */
export async function finishSurface(home: string, surface: string, counters: UsageCounters, waitMs?: number): Promise<void> {
  try {
    const { loadConfig } = await import("../config/load.ts");
    const values = loadConfig({ home, noProject: true }).values;
    await new TelemetrySession(home, telemetryConfig(values), surface, false, counters).finish(waitMs);
  } catch {
    // Usage counters must never change what the user sees.
  }
}
