/** The project's crash collector; `[report] endpoint` in the user config replaces it (docs/crash-reports.md). */
export const DEFAULT_CRASH_ENDPOINT = "https://crash.reasonix.dev/v1/reports";
