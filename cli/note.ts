// `reasonix run "#note"`: the note goes to the project's instruction file
// (core/commands/note.ts) and no turn runs. A run cannot ask, so outside
// auto/yolo it refuses with the fix in the message.
import { printJson, printJsonLine } from "./output.ts";

/** The exit code when `prompt` was a note (handled), undefined for an ordinary prompt. */
export async function noteFromRun(prompt: string, workspace: string, mode: string | undefined, format: string): Promise<number | undefined> {
  const { appendNote, headlessNoteRefusal, noteNeedsConfirmation, notedMessage, noteTarget, parseNote } = await import("../core/commands/note.ts");
  const note = parseNote(prompt);
  if (note === undefined) return undefined;
  const target = noteTarget(workspace);
  if (noteNeedsConfirmation(mode)) throw headlessNoteRefusal(target);
  appendNote(workspace, note, target);
  const result = { type: "note", path: target.path, created: !target.exists };
  if (format === "json") printJson(result);
  else if (format === "stream-json") printJsonLine(result);
  else process.stdout.write(`${notedMessage(target)}\n`);
  return 0;
}
