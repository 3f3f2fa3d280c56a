/**
 * A shell line the user typed (the chat's `!command`): the agent's own bash
 * tool runs it, through the same rules as a model's call — the session's
 * mode, deny/ask/allow rules (an ask rule asks: the user typed it, but rules
 * are rules), the sandbox — and front ends show it as a bash card. What it
 * printed is in the session's log (a `shell` record) and waits there for the
 * next turn, where it joins the user's message (the system prompt and the
 * tool block stay byte-identical). PreToolUse hooks run first, as for the
 * model's bash call.
 */
import { ReasonixError } from "../errors.ts";
import type { ShellRun } from "./types.ts";
import { now, type SessionCore } from "./session-core.ts";
import type { PendingShell } from "../sessions/replay.ts";
import { authorize, execute } from "./tool-round.ts";

let seq = 0;

/** Run `command` as the user's shell line; the caller holds the session busy around it. */
export async function runUserShell(s: SessionCore, command: string, signal: AbortSignal): Promise<ShellRun> {
  if (!command.trim()) throw new ReasonixError("usage", "the shell line is empty");
  const tool = s.toolMap.get("bash");
  if (!tool) throw new ReasonixError("tool_unavailable", "this session has no bash tool");
  const input = { command };
  const callId = `user-shell-${Date.now().toString(36)}-${++seq}`;
  s.emit({ type: "tool_call", callId, name: "bash", input, user: true });
  const turn = s.state.openTurn ?? Math.max(0, s.state.nextTurn - 1);
  // PreToolUse hooks first, exactly as for the model's bash call: a block stops the line (a protection the user set up).
  const hook = await s.deps.hooks?.preToolUse("bash", input, signal);
  let run: ShellRun;
  if (hook?.block) run = { ok: false, output: `blocked by a PreToolUse hook: ${hook.block}`, refused: true };
  else {
    const allowed = await authorize(s, { id: callId, name: "bash", arguments: JSON.stringify(input) }, tool, input, signal, !!hook?.approve);
    if (allowed !== true) run = { ok: false, output: typeof allowed === "object" ? allowed.refused : allowed, refused: true };
    else {
      const r = await execute(s, tool, input, { ...s.toolContext(turn, signal, new Set()), callId });
      run = { ok: r.ok, output: r.output };
    }
  }
  // In the log before it is shown: a resume or a model switch keeps it for the next prompt, a reload shows the card.
  // A refused line never ran: its card stays, nothing of it goes to the model (replay.ts).
  s.commit({ t: "shell", turn, callId, command, ok: run.ok, output: run.output, ...(run.refused ? { refused: true } : {}), at: now() });
  s.emit({ type: "tool_result", callId, name: "bash", ok: run.ok, output: run.output });
  return run;
}

/** How a shell line reaches the model: marked as the user's own, with its output. */
export const shellNote = (r: PendingShell): string =>
  `[The user ran this command in their shell${r.ok ? "" : " (it failed)"}:]\n$ ${r.command}\n${r.output.trimEnd() || "(no output)"}`;

/** The next turn's user message: the shell lines run since the last one (from the log), then what was typed. */
export function withShellNotes(s: SessionCore, content: string): string {
  const pending = s.state.pendingShell ?? [];
  if (pending.length === 0) return content;
  return [...pending.map(shellNote), content].join("\n\n");
}
