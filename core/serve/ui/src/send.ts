// Sending from the composer: a prompt (or guidance for the running turn), the
// `#note`, `/goal` and session commands that are answered instead of sent, and
// Cancel. The state and the busy bookkeeping live in store.ts.
import { api, sessionPath } from "./api.ts";
import { attachments, clearAttachments, withAttachments } from "./attachments.ts";
import { goalCommand, goalRequest, goalStatusText } from "./goal.ts";
import { addNote, noteText, runSessionCommand, sessionCommandName } from "./session-commands.ts";
import { changed, createSession, inFlight, markBusy, state } from "./store.ts";
import { addSteer, addSystem } from "./transcript.ts";

/** Runs built-in slash commands (web-commands.ts registers it: it needs this module, so this module cannot import it). */
let builtinRunner: ((text: string) => Promise<boolean>) | undefined;
export const onBuiltinCommand = (run: (text: string) => Promise<boolean>): void => {
  builtinRunner = run;
};

/** Send a prompt; while a turn runs it becomes guidance for that turn (steering). */
export async function send(prompt: string): Promise<boolean> {
  if (!prompt.trim() && !attachments.list.length) return false;
  // The chat's built-in commands (/model, /new, /help…): answered, never sent to the model.
  if (await builtinRunner?.(prompt)) return true;
  const id = state.current ?? (await createSession());
  if (!id) return false;
  // `#note`: to the project's instruction file (after a yes unless the mode is auto/yolo), not to the model.
  const note = noteText(prompt);
  if (note !== undefined) {
    if (state.mode !== "auto" && state.mode !== "yolo" && !window.confirm(`Add this note to the project instructions (AGENTS.md or the existing REASONIX.md/CLAUDE.md)?\n\n${note}`)) {
      addSystem(state.view, "Note not added.");
      changed();
      return true;
    }
    try {
      addSystem(state.view, (await addNote(prompt)).message);
    } catch (x) {
      addSystem(state.view, `Note not added: ${(x as Error).message}`, "error");
    }
    changed();
    return true;
  }
  // `/goal …`: goal mode on this session (core/serve/goal.ts), not a prompt.
  const goal = goalCommand(prompt);
  if (goal) {
    try {
      const r = await goalRequest(id, goal);
      if (goal.action === "status") addSystem(state.view, goalStatusText(r));
    } catch (x) {
      addSystem(state.view, `/goal: ${(x as Error).message}`, "error");
    }
    changed();
    return true;
  }
  const cmd = sessionCommandName(prompt);
  if (cmd) {
    try {
      const r = await runSessionCommand(id, cmd);
      if (!r.compacted) addSystem(state.view, r.text, r.ok ? "info" : "error");
    } catch (x) {
      addSystem(state.view, `/${cmd}: ${(x as Error).message}`, "error");
    }
    changed();
    return true;
  }
  state.stick++;
  // A prompt still on its way goes first: this text steers the turn it starts.
  const pending = inFlight.get(id);
  if (pending) await pending.catch(() => {});
  if (state.busy.has(id) && attachments.list.length) {
    addSystem(state.view, "Not sent: pictures go with a prompt, not with guidance for a running turn; queue it (Queue, Alt+Enter) for after the turn, or send it when the turn has ended.", "error");
    changed();
    return false;
  }
  if (state.busy.has(id)) {
    try {
      const r = await api<{ disposition: string }>("POST", sessionPath(id, "steer"), { text: prompt, start_if_idle: true });
      if (r.disposition === "started_turn") {
        // The turn had just ended (its events were still on the way): this is the next prompt.
        state.view.thinking = true;
        changed();
        return true;
      }
      addSteer(state.view, prompt);
      state.announce = r.disposition === "steer_accepted" ? "Guidance sent to the running turn." : "Queued for the next turn.";
      changed();
      return true;
    } catch (x) {
      addSystem(state.view, `Not sent: ${(x as Error).message}`, "error");
      changed();
      return false;
    }
  }
  markBusy(id, true);
  state.view.thinking = true;
  // Until the first turn is on disk the list has no title: show the prompt.
  const row = state.sessions.find((s) => s.id === id);
  if (row && !row.title) {
    row.title = prompt.split("\n")[0]!.slice(0, 80);
    state.sessions = [...state.sessions];
  }
  changed();
  // Pasted or dropped pictures go with it, each named in the text as [image #N].
  const sent = api("POST", sessionPath(id, "prompt"), withAttachments(prompt));
  inFlight.set(id, sent);
  try {
    await sent;
    clearAttachments();
    return true;
  } catch (x) {
    markBusy(id, false);
    state.view.thinking = false;
    addSystem(state.view, `Not sent: ${(x as Error).message}`, "error");
    changed();
    return false;
  } finally {
    if (inFlight.get(id) === sent) inFlight.delete(id);
  }
}

/**
 * Stop the open session's turn (Esc, the Cancel button). A prompt still on its
 * way is let through first: a cancel that overtook it would find no turn to
 * stop and the turn would run on.
 */
export async function cancel(): Promise<void> {
  const id = state.current;
  if (!id) return;
  const sent = inFlight.get(id);
  if (sent) await sent.catch(() => {});
  try {
    await api("POST", sessionPath(id, "cancel"));
  } catch (x) {
    addSystem(state.view, `Cancel failed: ${(x as Error).message}`, "error");
    changed();
  }
}
