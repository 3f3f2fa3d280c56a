// The data boundary in words: shown by the one-time question in the chat and
// when `reasonix config telemetry` turns counters on. docs/telemetry.md says
// the same at length; schema.ts is what enforces it.
export const BOUNDARY_QUESTION = "Share anonymous usage counters with the Reasonix maintainers?";

export const BOUNDARY_LINES = [
  "At most once a day: a random install id, the version, OS, CPU type, which front end (chat/run),",
  "the UI language, and counts in fixed ranges: turn time, how turns ended, cache-hit range,",
  "provider/tool error classes, compactions and retries.",
  "Never prompts, answers, code, file or tool names, paths, repositories, session ids, models,",
  "providers, tokens, costs, URLs or your environment. Details: reasonix docs show telemetry.md",
];

export const CHANGE_LATER = "change it any time: reasonix config telemetry off|auto|on";
