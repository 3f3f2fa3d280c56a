// Whether usage counters may be collected for this process (issue 31):
// `[telemetry] mode` auto (interactive terminal chats only) | on (also the
// surfaces no person answers at a terminal: headless run, serve and the
// browser UI, ACP, mcp serve, remote connect) | off, and never in CI, in development builds, with
// DO_NOT_TRACK=1 or REASONIX_TELEMETRY=0, or before a choice was saved.
import { buildInfo } from "../version.ts";

export type TelemetrySetting = "auto" | "on" | "off";
export const TELEMETRY_SETTINGS: readonly TelemetrySetting[] = ["auto", "on", "off"];

export interface TelemetryDecision {
  collect: boolean;
  /** Why not (or "enabled"): shown by doctor and `reasonix config telemetry`. */
  reason: string;
  /** Everything allows collecting but no choice is saved yet: an interactive chat asks once. */
  ask: boolean;
}

export interface TelemetryInputs {
  setting: TelemetrySetting | undefined;
  /** The saved answer to the one-time question (or `reasonix config telemetry`); undefined: none saved. */
  choice: "yes" | "no" | undefined;
  env: NodeJS.ProcessEnv;
  /** Running from source (no release stamp): see devBuild(). */
  devBuild: boolean;
  surface: string;
  interactive: boolean;
}

const truthy = (v: string | undefined) => v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";

/**
 * A development build never collects. Tests run from source, so they may
 * lift that with REASONIX_TEST_TELEMETRY=1 — which only exists in unstamped
 * builds: a release binary has a commit stamp and is never a development build.
 */
export const devBuild = (env: NodeJS.ProcessEnv = process.env): boolean => buildInfo().commit === "dev" && env.REASONIX_TEST_TELEMETRY !== "1";

const no = (reason: string, ask = false): TelemetryDecision => ({ collect: false, reason, ask });

export function telemetryDecision(i: TelemetryInputs): TelemetryDecision {
  if (truthy(i.env.CI)) return no("off: CI is set");
  if (truthy(i.env.DO_NOT_TRACK)) return no("off: DO_NOT_TRACK is set");
  if (i.env.REASONIX_TELEMETRY === "0") return no("off: REASONIX_TELEMETRY=0");
  if (i.devBuild) return no("off: development build");
  const setting = i.setting ?? "auto";
  if (setting === "off") return no("off: [telemetry] mode = off");
  if (i.choice === "no") return no("off: you declined sharing usage counters");
  if (setting === "auto" && !i.interactive) return no("auto: interactive terminal sessions only");
  if (i.choice !== "yes") return no("off until the one-time choice is saved", true);
  return { collect: true, reason: "enabled", ask: false };
}
