import type { RewindResult } from "../engine/types.ts";
import { ReasonixError } from "../errors.ts";
import { restoreFiles } from "./checkpoints.ts";
import { REWIND_MODES, type RewindMode } from "../protocol/modes.ts";
import { replay } from "./replay.ts";
import type { SessionFile } from "./store.ts";

/**
 * Go back to just before `turn`: "code" restores every file a writer touched
 * since then, "conversation" drops those turns from the conversation, "both"
 * does both. The log only grows: a rewind record says what happened.
 */
export function rewindSession(file: SessionFile, turn: number, mode: RewindMode): RewindResult {
  const state = replay(file.records);
  if (!state.turns.some((t) => t.turn === turn)) {
    throw new ReasonixError("rewind_turn", `turn ${turn} is not in session ${file.id} (turns: ${state.turns.map((t) => t.turn).join(", ") || "none"})`, { exitCode: 2 });
  }
  if (!REWIND_MODES.includes(mode)) throw new ReasonixError("usage", `rewind mode must be code, conversation or both (got "${mode}")`, { exitCode: 2 });
  const files = mode === "conversation" ? [] : restoreFiles(file, turn);
  file.append({ t: "rewind", turn, mode, at: new Date().toISOString() });
  return { turn, mode, files };
}
