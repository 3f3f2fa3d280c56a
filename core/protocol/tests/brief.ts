// A folded block as one short string, for tests that compare transcripts.
import type { Block } from "../fold.ts";

/** A block as one short string, so a table row reads at a glance. */
export function brief(b: Block): string {
  switch (b.kind) {
    case "prompt":
      return `prompt ${b.turn}: ${b.text}`;
    case "answer":
      return `answer${b.streaming ? " (streaming)" : ""}: ${JSON.stringify(b.text)}${b.reasoning ? ` ∴ ${JSON.stringify(b.reasoning)}` : ""}`;
    case "tool":
      return `tool ${b.callId} ${b.name} ${b.status}${b.decision ? ` (${b.decision})` : ""}${b.output !== undefined ? `: ${b.output}` : ""}`;
    case "notice":
      return `notice ${b.event.type}`;
    case "end":
      return `end ${b.turn} ${b.reason}${b.error ? `: ${b.error}` : ""}${b.repeatsError ? " (said)" : ""}`;
  }
}

