/**
 * The goal tools. Both are registered in every session (core/tools/builtin),
 * so the tool block — part of the cached prompt prefix — is the same whether
 * or not a goal runs and never changes when one starts mid-session. Outside a
 * running goal update_goal refuses with the reason; complete_step works on
 * any todo list.
 */
import type { TodoItem } from "../engine/types.ts";
import { done, fail, guarded, ToolInputError } from "../tools/builtin/common.ts";
import type { ToolDefinition } from "../tools/types.ts";

interface UpdateInput {
  status: "continue" | "complete" | "blocked";
  evidence: string;
  completion?: { unverified?: string[] };
}

const NO_GOAL = "goal mode is not available in this session";

export const updateGoalTool: ToolDefinition<UpdateInput> = {
  name: "update_goal",
  description:
    "Goal mode only: report your disposition at the end of every goal turn. status continue (more work left), complete (the objective is met; evidence shows it) or blocked (you need the user). completion.unverified lists checks you could not run.",
  inputSchema: {
    type: "object",
    properties: {
      status: { type: "string", enum: ["continue", "complete", "blocked"] },
      evidence: { type: "string", description: "What this turn did and observed that supports the status; for blocked, what you need from the user" },
      completion: {
        type: "object",
        properties: { unverified: { type: "array", items: { type: "string" }, description: "Checks you could not run (with why)" } },
        additionalProperties: false,
      },
    },
    required: ["status", "evidence"],
    additionalProperties: false,
  },
  kind: "meta",
  summarize: (i) => `goal: ${String(i?.status ?? "?")}`,
  run: guarded(async (input, ctx) => {
    const status = input?.status;
    if (status !== "continue" && status !== "complete" && status !== "blocked") throw new ToolInputError("status must be continue, complete or blocked");
    if (typeof input.evidence !== "string" || !input.evidence.trim()) throw new ToolInputError("evidence must be non-empty text");
    const raw = input.completion?.unverified ?? [];
    if (!Array.isArray(raw) || raw.some((u) => typeof u !== "string")) throw new ToolInputError("completion.unverified must be a list of strings");
    if (!ctx.goal) return fail(NO_GOAL);
    const r = ctx.goal.report({ status, evidence: input.evidence.trim(), unverified: raw.map((u) => u.trim()).filter(Boolean) });
    return r.ok ? done(r.text) : fail(r.error);
  }),
};

interface StepInput {
  step: string;
  evidence: string;
}

const norm = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();

/** The todo list after signing off `step`, or the refusal. Steps go in list order. */
export function signOff(todos: TodoItem[], step: string, evidence: string): { ok: true; items: TodoItem[]; content: string } | { ok: false; error: string } {
  if (todos.length === 0) return { ok: false, error: "there is no todo list to sign off against: write one with todo_write first" };
  if (!evidence.trim()) return { ok: false, error: "evidence must say what shows the step is done" };
  const next = todos.findIndex((t) => t.status !== "completed");
  if (next < 0) return { ok: false, error: "every todo step is already signed off" };
  const n = /^\d+$/.test(step.trim()) ? Number(step.trim()) - 1 : todos.findIndex((t) => norm(t.content) === norm(step));
  if (n < 0 || n >= todos.length) return { ok: false, error: `no todo step "${step}"; the next step is "${todos[next]!.content}"` };
  if (todos[n]!.status === "completed") return { ok: false, error: `"${todos[n]!.content}" is already signed off; the next step is "${todos[next]!.content}"` };
  if (n !== next) return { ok: false, error: `steps are signed off in order: "${todos[next]!.content}" comes before "${todos[n]!.content}"` };
  const items = todos.map((t, i): TodoItem => (i === n ? { ...t, status: "completed" } : t));
  const after = items.findIndex((t) => t.status !== "completed");
  if (after >= 0 && items[after]!.status === "pending") items[after] = { ...items[after]!, status: "in_progress" };
  return { ok: true, items, content: todos[n]!.content };
}

export const completeStepTool: ToolDefinition<StepInput> = {
  name: "complete_step",
  description:
    "Sign off the next todo step as done, with the evidence (command output, test result, file read) that shows it. Steps are signed off in todo order; the next one becomes in_progress.",
  inputSchema: {
    type: "object",
    properties: {
      step: { type: "string", description: "The todo step's text, or its number in the list (1 = first)" },
      evidence: { type: "string", description: "What shows the step is done" },
    },
    required: ["step", "evidence"],
    additionalProperties: false,
  },
  kind: "meta",
  summarize: (i) => `sign off: ${String(i?.step ?? "?")}`,
  run: guarded(async (input, ctx) => {
    if (typeof input?.step !== "string" || !input.step.trim()) throw new ToolInputError("step must be non-empty text");
    if (typeof input.evidence !== "string") throw new ToolInputError("evidence must be text");
    if (!ctx.goal) return fail(NO_GOAL);
    const r = signOff(ctx.goal.todos(), input.step, input.evidence);
    if (!r.ok) return fail(r.error);
    ctx.emitTodo?.(r.items);
    ctx.goal.signedOff(r.content, input.evidence.trim());
    const left = r.items.filter((t) => t.status !== "completed").length;
    return done(`signed off "${r.content}"; ${left === 0 ? "every step is done" : `${left} step${left === 1 ? "" : "s"} left, next: "${r.items.find((t) => t.status !== "completed")!.content}"`}`);
  }),
};

export const goalTools = [updateGoalTool, completeStepTool] as const;
