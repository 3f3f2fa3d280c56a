// The queue above the composer: the first few prompts waiting for the
// running turn's end, and whether the queue is paused (after a crash, a
// failed item, Esc or /queue pause) — /queue manages it.
import { truncateToWidth } from "@mariozechner/pi-tui";
import { c } from "./theme.ts";
import { t } from "../../core/protocol/i18n/index.ts";

const SHOWN = 5;

export function queuedBelow(texts: readonly string[], paused: boolean, w: number): string[] {
  const out = texts.slice(0, SHOWN).map((q) => truncateToWidth(c.dim(t("chat.queued", { text: q.replace(/\s+/g, " ") })), w, "…"));
  if (texts.length > SHOWN) out.push(c.dim(`… ${texts.length - SHOWN} more (/queue list)`));
  if (paused && texts.length) out.push(truncateToWidth(c.yellow(`queue paused (${texts.length}) · /queue resume sends it · /queue list`), w, "…"));
  return out;
}
