/** The project's usage-counter collector; `[telemetry] endpoint` in the user config replaces it (docs/telemetry.md). */
export const DEFAULT_TELEMETRY_ENDPOINT = "https://telemetry.reasonix.dev/v1/counters";
