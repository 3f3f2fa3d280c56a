/**
 * The bounded goal evaluator: when a goal turn ends without an update_goal
 * report, ONE plain chat request (no tools, no retries, a short deadline)
 * judges the turn from a digest of it. Any failure — an HTTP error, the
 * deadline, an answer that is not the asked-for JSON — is thrown as an
 * EvaluatorError; the driver pauses the goal with its message. The usage of
 * an answer that came back is reported either way (role goal_evaluator).
 */
import type { EngineEvent, TodoItem, Usage } from "../engine/types.ts";
import type { Provider } from "../providers/types.ts";
import { EVALUATOR_SYSTEM, evaluatorInput } from "./prompts.ts";

export interface Verdict {
  status: "continue" | "complete" | "blocked";
  reason: string;
}

export class EvaluatorError extends Error {}

const STATUSES = new Set(["continue", "complete", "blocked"]);
const DIGEST_LIMIT = 8000;
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** The verdict in the evaluator's answer; throws EvaluatorError when it is not one. */
export function parseVerdict(text: string): Verdict {
  const body = text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, "$1");
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    throw new EvaluatorError(`the evaluator's answer is not JSON: ${clip(JSON.stringify(text), 120)}`);
  }
  const o = v as { status?: unknown; reason?: unknown };
  if (!o || typeof o !== "object" || typeof o.status !== "string" || !STATUSES.has(o.status)) {
    throw new EvaluatorError(`the evaluator's answer has no status continue|complete|blocked: ${clip(body, 120)}`);
  }
  return { status: o.status as Verdict["status"], reason: typeof o.reason === "string" && o.reason.trim() ? o.reason.trim() : "(no reason given)" };
}

/** The last turn as text for the evaluator: its tail, bounded. */
export function turnDigest(history: EngineEvent[]): string {
  let start = 0;
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.type === "turn_start") { start = i; break; }
  const lines: string[] = [];
  for (const e of history.slice(start)) {
    if (e.type === "assistant" && e.text.trim()) lines.push(`assistant: ${clip(e.text.trim(), 1500)}`);
    else if (e.type === "tool_call") lines.push(`call ${e.name} ${clip(JSON.stringify(e.input), 300)}`);
    else if (e.type === "tool_result") lines.push(`result ${e.name} ${e.ok ? "ok" : "error"}: ${clip(e.output, 500)}`);
    else if (e.type === "turn_end") lines.push(`turn ended: ${e.reason}${e.error ? ` (${e.error})` : ""}`);
  }
  const text = lines.join("\n");
  return text.length > DIGEST_LIMIT ? `…${text.slice(-DIGEST_LIMIT)}` : text;
}

export const todoText = (todos: TodoItem[]): string => todos.map((t) => `[${t.status}] ${t.content}`).join("\n");

export async function evaluateTurn(
  provider: Provider,
  input: { objective: string; todos: TodoItem[]; history: EngineEvent[] },
  timeoutMs: number,
  signal: AbortSignal,
  /** Told the usage of every answer that came back, also one that is not a verdict. */
  spent: (usage: Usage) => void = () => {},
): Promise<{ verdict: Verdict; usage: Usage }> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const both = AbortSignal.any([signal, deadline]);
  let res;
  try {
    res = await provider.chat(
      { system: EVALUATOR_SYSTEM, tools: [], messages: [{ role: "user", content: evaluatorInput(input.objective, todoText(input.todos), turnDigest(input.history)) }] },
      {},
      both,
    );
  } catch (e) {
    if (deadline.aborted && !signal.aborted) throw new EvaluatorError(`the evaluator did not answer within ${Math.round(timeoutMs / 1000)} s ([agent] goal_evaluator_timeout_seconds)`);
    throw new EvaluatorError(`the evaluator request failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  spent(res.usage);
  return { verdict: parseVerdict(res.message.content), usage: res.usage };
}
