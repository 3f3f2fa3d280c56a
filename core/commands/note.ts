/**
 * `#<note>` typed as a message: the note is appended to the project's
 * instruction file instead of being sent to the model. The file is the first
 * of REASONIX.md, AGENTS.md, CLAUDE.md in the workspace root (the order
 * core/engine/instructions.ts reads them), or a new AGENTS.md. Every front
 * end (terminal chat, web UI, `reasonix run`) uses these functions; each asks
 * for confirmation in its own way when the permission mode wants one.
 */
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ReasonixError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { isWithin } from "../policy/paths.ts";
import type { PermissionMode } from "../engine/types.ts";
import { parseNote } from "../protocol/commands.ts";

/** Project instruction files a note may go to, in the order they are read. */
export const NOTE_FILES = ["REASONIX.md", "AGENTS.md", "CLAUDE.md"];
export const MAX_NOTE_CHARS = 2000;

/** The note in `#note` (core/protocol/commands.ts, which the web UI reads too). */
export { parseNote };

/** Whether a note needs the user's yes first: in ask, plan and read-only modes (auto and yolo write at once). */
export const noteNeedsConfirmation = (mode: PermissionMode | string | undefined): boolean => mode !== "auto" && mode !== "yolo";

export interface NoteTarget {
  /** Absolute path written to. */
  path: string;
  /** Relative to the workspace, for messages. */
  rel: string;
  /** False when the note creates the file. */
  exists: boolean;
}

/** Where a note goes: the first existing instruction file of the workspace root, else a new AGENTS.md. */
export function noteTarget(workspace: string): NoteTarget {
  const root = realpathSync(workspace);
  for (const name of NOTE_FILES) {
    const p = join(root, name);
    let st;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    // A link is followed only to a regular file inside the workspace (the file a repository ships is not a door out).
    const real = st.isSymbolicLink() && existsSync(p) ? realpathSync(p) : p;
    if (!isWithin(real, root)) throw new ReasonixError("note_target", `${join(workspace, name)} links outside the workspace (${real}); a #note is not written there`, { hint: "replace the link with a file, or edit the instructions yourself" });
    if (!statSync(real).isFile()) throw new ReasonixError("note_target", `${join(workspace, name)} is not a regular file`);
    return { path: real, rel: relative(root, real) || name, exists: true };
  }
  return { path: join(root, "AGENTS.md"), rel: "AGENTS.md", exists: false };
}

/** Append `- note` to the target (atomic write, the file's mode kept). */
export function appendNote(workspace: string, note: string, target = noteTarget(workspace)): NoteTarget {
  const clean = note.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "").trim();
  if (!clean) throw new ReasonixError("note_empty", "the note is empty (type #, then the note)");
  if (clean.length > MAX_NOTE_CHARS) throw new ReasonixError("note_too_long", `the note is ${clean.length} characters; at most ${MAX_NOTE_CHARS} (edit ${target.rel} for longer text)`);
  const before = target.exists ? readFileSync(target.path, "utf8") : "";
  const sep = before === "" || before.endsWith("\n") ? "" : "\n";
  const mode = target.exists ? statSync(target.path).mode & 0o777 : 0o644;
  writeFileAtomic(target.path, `${before}${sep}- ${clean}\n`, { mode });
  return target;
}

/** What a front end prints after a note was added. */
export const notedMessage = (t: NoteTarget): string => `noted in ${t.rel}${t.exists ? "" : " (new file)"}; new sessions read it with the project instructions`;

/** The refusal of a headless run that cannot ask (the fix is in the message). */
export function headlessNoteRefusal(t: NoteTarget): ReasonixError {
  return new ReasonixError("note_needs_confirmation", `a #note is appended to ${t.rel} only after confirmation, and this run cannot ask`, {
    hint: "rerun with --auto (-y) to append it, or edit the file yourself",
  });
}
