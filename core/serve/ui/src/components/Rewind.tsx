// Rewind to just before a turn, as `reasonix sessions rewind` does: restore
// the files that turn and later ones changed, drop the conversation from it
// on, or both.
import { api, sessionPath } from "../api.ts";
import { changed, flashBanner, openSession, setBanner, state } from "../store.ts";
import type { RewindMode } from "../../../../protocol/modes.ts";

export async function rewindTo(turn: number, mode: RewindMode): Promise<boolean> {
  const id = state.current;
  if (!id) return false;
  try {
    const r = await api<{ files: { path: string; action: string }[] }>("POST", sessionPath(id, "rewind"), { turn, mode });
    await openSession(id, false);
    const files = r.files?.length ? ` ${r.files.length} file${r.files.length === 1 ? "" : "s"} restored.` : "";
    flashBanner(`Rewound to before turn ${turn} (${mode === "both" ? "code and conversation" : mode}).${files}`, 4000);
    return true;
  } catch (x) {
    setBanner(`Rewind failed: ${(x as Error).message}`, "error");
    return false;
  }
}

export function Rewind() {
  const u = state.rewindFor;
  if (!u) return null;
  const close = () => {
    state.rewindFor = null;
    changed();
  };
  const go = (mode: RewindMode) => async () => {
    close();
    await rewindTo(u.turn, mode);
  };
  return (
    <div class="dialog-backdrop">
      <div id="rewind-dialog" class="card dialog" role="dialog" aria-modal="true" aria-labelledby="rewind-h">
        <h2 id="rewind-h">Rewind to before this message</h2>
        <p class="quote">{u.text.slice(0, 200)}</p>
        <p class="muted">Code restores the files this turn and later ones changed; conversation removes this message and everything after it.</p>
        <div class="buttons">
          <button type="button" class="primary" id="rewind-both" onClick={go("both")} autoFocus>Code and conversation</button>
          <button type="button" id="rewind-code" onClick={go("code")}>Code only</button>
          <button type="button" id="rewind-conversation" onClick={go("conversation")}>Conversation only</button>
          <button type="button" onClick={close}>Cancel</button>
        </div>
      </div>
    </div>
  );
}
