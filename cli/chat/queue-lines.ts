// The queue above the composer: the first few prompts waiting for the
// running turn's end, and whether the queue is paused (after a crash, a
// failed item, Esc or /queue pause) — /queue manages it.
import { matchesKey, truncateToWidth, type Editor } from "@mariozechner/pi-tui";
import { atToken } from "./complete.ts";
import type { ChatState } from "./session.ts";
import type { ImageInput } from "../../core/protocol/contract.ts";
import { c } from "./theme.ts";
import { t } from "../../core/protocol/i18n/index.ts";

const SHOWN = 5;

export function queuedBelow(texts: readonly string[], paused: boolean, w: number): string[] {
  const out = texts.slice(0, SHOWN).map((q) => truncateToWidth(c.dim(t("chat.queued", { text: q.replace(/\s+/g, " ") })), w, "…"));
  if (texts.length > SHOWN) out.push(c.dim(`… ${texts.length - SHOWN} more (/queue list)`));
  if (paused && texts.length) out.push(truncateToWidth(c.yellow(`queue paused (${texts.length}) · /queue resume sends it · /queue list`), w, "…"));
  return out;
}

/**
 * Tab while a turn runs queues the message for after it (unless it completes
 * a command or an @path). On disk first: the box clears only then, and a
 * refused one stays to edit. `pictures`: the pasted pictures its `[image #N]`s
 * name, queued (and stored) with it. True when the key was taken.
 */
export function queueOnTab(data: string, editor: Editor, st: ChatState, refused: (message: string) => void, remember: (text: string) => void, pictures?: (text: string) => ImageInput[]): boolean {
  const typed = editor.getText();
  if (!matchesKey(data, "tab") || !st.session.busy || !typed.trim() || editor.isShowingAutocomplete() || /^\/\S*$/.test(typed) || atToken(typed) !== undefined) return false;
  const text = typed.trim();
  const why = st.enqueue(text, pictures?.(text));
  if (why) refused(why);
  else editor.setText("");
  remember(text);
  return true;
}
