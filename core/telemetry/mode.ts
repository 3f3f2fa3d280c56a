// Whether usage counters may be collected for this process (issue 31):
// `[telemetry] mode` auto (interactive terminal sessions only) | on (also
// headless run) | off, and never in CI, in development builds, with
// DO_NOT_TRACK=1 or REASONIX_TELEMETRY=0, or before a choice was saved.
// Not wired to a sender yet.

export type TelemetrySetting = "auto" | "on" | "off";

export interface TelemetryDecision {
  collect: boolean;
  /** Why not (or "enabled"): shown by doctor. */
  reason: string;
}

export interface TelemetryInputs {
  setting: TelemetrySetting | undefined;
  /** The user answered the one-time prompt and the answer was saved. */
  consentSaved: boolean;
  env: NodeJS.ProcessEnv;
  /** buildInfo().commit === "dev": running from source. */
  devBuild: boolean;
  surface: string;
  interactive: boolean;
}

const truthy = (v: string | undefined) => v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";

export function telemetryDecision(i: TelemetryInputs): TelemetryDecision {
  if (truthy(i.env.CI)) return { collect: false, reason: "off: CI is set" };
  if (truthy(i.env.DO_NOT_TRACK)) return { collect: false, reason: "off: DO_NOT_TRACK is set" };
  if (i.env.REASONIX_TELEMETRY === "0") return { collect: false, reason: "off: REASONIX_TELEMETRY=0" };
  if (i.devBuild) return { collect: false, reason: "off: development build" };
  const setting = i.setting ?? "auto";
  if (setting === "off") return { collect: false, reason: "off: [telemetry] mode = off" };
  if (!i.consentSaved) return { collect: false, reason: "off until the one-time choice is saved" };
  if (setting === "auto" && !i.interactive) return { collect: false, reason: "auto: interactive terminal sessions only" };
  if (setting === "on" && !i.interactive && i.surface !== "run") return { collect: false, reason: "on: interactive sessions and headless run only" };
  return { collect: true, reason: "enabled" };
}
