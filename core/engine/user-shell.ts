/**
 * A shell line the user typed (the chat's `!command`): the agent's own bash
 * tool runs it, through the same rules as a model's call — the session's
 * mode, deny/ask/allow rules (an ask rule asks: the user typed it, but rules
 * are rules), the sandbox — and front ends show it as a bash card. What it
 * printed waits for the next turn, where it joins the user's message (the
 * system prompt and the tool block stay byte-identical).
 */
import { ReasonixError } from "../errors.ts";
import type { ShellRun } from "./types.ts";
import type { SessionCore } from "./session-core.ts";
import { authorize, execute } from "./tool-round.ts";

let seq = 0;

/** Run `command` as the user's shell line; the caller holds the session busy around it. */
export async function runUserShell(s: SessionCore, command: string, signal: AbortSignal): Promise<ShellRun> {
  if (!command.trim()) throw new ReasonixError("usage", "the shell line is empty");
  const tool = s.toolMap.get("bash");
  if (!tool) throw new ReasonixError("tool_unavailable", "this session has no bash tool");
  const input = { command };
  const callId = `user-shell-${Date.now().toString(36)}-${++seq}`;
  s.emit({ type: "tool_call", callId, name: "bash", input });
  const turn = s.state.openTurn ?? Math.max(0, s.state.nextTurn - 1);
  const allowed = await authorize(s, { id: callId, name: "bash", arguments: JSON.stringify(input) }, tool, input, signal);
  let run: ShellRun;
  if (allowed !== true) run = { ok: false, output: typeof allowed === "object" ? allowed.refused : allowed, refused: true };
  else {
    const r = await execute(s, tool, input, { ...s.toolContext(turn, signal, new Set()), callId });
    run = { ok: r.ok, output: r.output };
  }
  s.emit({ type: "tool_result", callId, name: "bash", ok: run.ok, output: run.output });
  // A refused line never ran: nothing of it goes to the model.
  if (!run.refused) s.shellNotes.push(shellNote(command, run));
  return run;
}

/** How a shell line reaches the model: marked as the user's own, with its output. */
export const shellNote = (command: string, r: ShellRun): string =>
  `[The user ran this command in their shell${r.ok ? "" : " (it failed)"}:]\n$ ${command}\n${r.output.trimEnd() || "(no output)"}`;

/** The next turn's user message: the shell lines run since the last turn, then what was typed. */
export function withShellNotes(s: SessionCore, content: string): string {
  if (s.shellNotes.length === 0) return content;
  return [...s.shellNotes.splice(0), content].join("\n\n");
}
