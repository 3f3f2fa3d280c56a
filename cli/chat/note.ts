// `#note` in the chat: appended to the project's instruction file
// (core/commands/note.ts), not sent to the model. In ask, plan and read-only
// modes the chat asks yes/no first.
import { errorMessage } from "../../core/errors.ts";
import { cleanText } from "./sanitize.ts";
import type { SlashContext } from "./slash.ts";

/** True when `text` was a note (handled here, added or not). */
export async function noteFromChat(ctx: SlashContext, text: string): Promise<boolean> {
  if (!text.trimStart().startsWith("#")) return false;
  const n = await import("../../core/commands/note.ts");
  const note = n.parseNote(text);
  if (note === undefined) return false;
  try {
    const target = n.noteTarget(ctx.st.session.workspace);
    if (n.noteNeedsConfirmation(ctx.st.mode)) {
      const yes = await ctx.pick(`Add this note to ${cleanText(target.rel)}${target.exists ? "" : " (a new file)"}?`, [
        { label: "yes", value: true, description: cleanText(note).slice(0, 100) },
        { label: "no", value: false, description: "nothing is written; the note is not sent to the model either" },
      ]);
      if (!yes) {
        ctx.print([ctx.paint.dim("note not added")]);
        return true;
      }
    }
    n.appendNote(ctx.st.session.workspace, note, target);
    ctx.print([ctx.paint.green(cleanText(n.notedMessage(target)))]);
  } catch (e) {
    ctx.print([ctx.paint.red(`note: ${errorMessage(e)}`)]);
  }
  return true;
}
