/**
 * The two-model planner: on an explicit plan request (detect.ts) a second
 * model researches with read-only tools and delivers a structured plan
 * through submit_plan, in its own conversation with its own cache-stable
 * prefix (system prompt + tools + the session's instruction preamble). Then:
 *
 *   plan_first    → the plan joins the executor's turn at the tail; it carries on.
 *   plan_approval → the user approves (any front end) before the executor starts.
 *   plan_only     → the plan is the turn's answer, saved in the session; nothing runs.
 *   goal          → the plan is the first goal turn's note (core/goal hooks).
 *
 * A planner failure falls back to the executor on plan_first and goal; the
 * plan_only and plan_approval routes fail closed and the turn is rolled back.
 */
import { errorMessage } from "../errors.ts";
import { chatWithRetry, type RetryPolicy } from "../providers/retry.ts";
import type { Message, Provider, ToolSchema } from "../providers/types.ts";
import type { ToolDefinition, ToolResult } from "../tools/types.ts";
import type { ApprovalDecision, EngineEvent, Plan, PlanRoute, TurnEndReason, Usage } from "../engine/types.ts";
import type { Prices } from "../providers/pricing.ts";
import { detectPlanRoute } from "./detect.ts";
import { SUBMIT_PLAN, parsePlan, renderPlan } from "./plan.ts";
import { FINALIZE, executorPlanMessage, plannerSystem, plannerTurn } from "./prompt.ts";

/** Research rounds before the planner is told to submit; one more round to do so. */
export const PLANNER_MAX_STEPS = 8;

/** What the planner may do inside a session (LiveSession implements it). */
export interface PlannerHost {
  signal: AbortSignal;
  headless: boolean;
  /** The executor's conversation (its preamble is shared with the planner). */
  messages(): readonly Message[];
  preamble(): number;
  /** A read-only tool call, through the session's permission rules. */
  runTool(tool: ToolDefinition, input: unknown): Promise<ToolResult>;
  /** Record and emit the plan event. */
  recordPlan(route: PlanRoute, plan: Plan, text: string): void;
  /** Append a message to the executor's conversation (this turn). */
  addMessage(msg: Message): void;
  /** Put an approval question to the user; resolves with the answer. */
  ask(request: Extract<EngineEvent, { type: "approval_request" }>): Promise<ApprovalDecision>;
  warn(code: string, message: string): void;
  /** The planner's tokens, at its model's prices (recorded as the planner's spend). */
  spent?(usage: Usage, prices: Prices | undefined): void;
}

/** undefined: the executor runs the turn; otherwise the turn ends here. */
export type PlannerOutcome = undefined | { end: TurnEndReason; error?: string; rollback?: boolean };

export interface PlannerOptions {
  provider: Provider;
  modelName: string;
  workspace: string;
  /** The session's tools; the planner keeps the read-only ones (readOnlyTools). */
  tools: ToolDefinition[];
  retry: RetryPolicy;
}

export class Planner {
  readonly system: string;
  readonly schemas: ToolSchema[];
  private readonly toolMap: Map<string, ToolDefinition>;

  constructor(private readonly o: PlannerOptions) {
    // Fixed once per session: the planner's cached prefix.
    this.system = plannerSystem({ workspace: o.workspace });
    this.toolMap = new Map(o.tools.map((t) => [t.name, t]));
    this.schemas = [...o.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })), SUBMIT_PLAN].sort((a, b) => a.name.localeCompare(b.name));
  }

  get model(): string {
    return this.o.modelName;
  }

  /** At a turn's start: plan when the request explicitly asks for it. */
  async beforeTurn(host: PlannerHost, prompt: string): Promise<PlannerOutcome> {
    // Goal turns were planned once, at goal start (planForGoal); their prompts quote the objective.
    if (prompt.startsWith("[Goal mode]")) return undefined;
    const route = detectPlanRoute(prompt);
    if (!route) return undefined;
    const r = await this.plan(host, route, prompt);
    if (host.signal.aborted) return { end: "cancelled" };
    if (!r.ok) {
      const cause = `the planner (${this.o.modelName}) did not deliver a plan: ${r.error}`;
      if (route === "plan_first") {
        host.warn("planner_fallback", `${cause}; the executor carries on with the original request`);
        return undefined;
      }
      const what = route === "plan_only" ? "a plan-only request" : "a plan that waits for your approval";
      return { end: "error", error: `${cause}. Nothing was executed (${what} fails closed) and this turn was rolled back; try again, or check [agent] planner_model`, rollback: true };
    }
    const text = renderPlan(r.plan);
    host.recordPlan(route, r.plan, text);
    if (route === "plan_first") {
      host.addMessage({ role: "user", content: executorPlanMessage(text, false) });
      return undefined;
    }
    if (route === "plan_only") {
      host.addMessage({ role: "assistant", content: `${text}\n\n(Plan only: nothing was executed. Say so when you want it carried out.)` });
      return { end: "done" };
    }
    // plan_approval
    if (host.headless) {
      host.addMessage({ role: "assistant", content: `${text}\n\n(Waiting for approval: nothing was executed.)` });
      return { end: "denied", error: "the plan needs your approval and this headless run cannot ask; the plan is saved in the session: continue it interactively to approve it" };
    }
    const decision = await host.ask({
      type: "approval_request",
      callId: `plan-${Date.now().toString(36)}`,
      name: "submit_plan",
      input: r.plan,
      summary: `plan: ${r.plan.summary} — approve to start executing it`,
      suggestedRule: "",
    });
    if (decision === "deny") {
      host.addMessage({ role: "assistant", content: `${text}\n\n(The user did not approve this plan; nothing was executed.)` });
      return { end: host.signal.aborted ? "cancelled" : "denied", error: "the plan was not approved; nothing was executed" };
    }
    host.addMessage({ role: "user", content: executorPlanMessage(text, true) });
    return undefined;
  }

  /**
   * Goal start (core/goal hooks): a plan for the objective, returned as the
   * note that joins the first goal turn. Throws when no plan comes: the goal
   * then starts on the executor alone.
   */
  async planForGoal(host: PlannerHost, objective: string): Promise<string> {
    const r = await this.plan(host, "goal", objective);
    if (!r.ok) throw new Error(`the planner (${this.o.modelName}) did not deliver a plan: ${r.error}`);
    const text = renderPlan(r.plan);
    host.recordPlan("goal", r.plan, text);
    return executorPlanMessage(text, false);
  }

  /** The planner's own conversation: research, then submit_plan. Never throws. */
  async plan(host: PlannerHost, route: PlanRoute, request: string): Promise<{ ok: true; plan: Plan } | { ok: false; error: string }> {
    const all = host.messages();
    const messages: Message[] = [...all.slice(0, host.preamble()), { role: "user", content: plannerTurn(route, request, all.slice(host.preamble())) }];
    try {
      for (let step = 1; step <= PLANNER_MAX_STEPS + 1; step++) {
        if (step === PLANNER_MAX_STEPS + 1) messages.push({ role: "user", content: FINALIZE });
        const res = await chatWithRetry(this.o.provider, { system: this.system, tools: this.schemas, messages }, {}, host.signal, this.o.retry);
        host.spent?.(res.usage, this.o.provider.prices);
        const msg = res.message;
        messages.push(msg);
        const calls = msg.toolCalls ?? [];
        if (calls.length === 0) {
          if (step < PLANNER_MAX_STEPS) messages.push({ role: "user", content: "Call submit_plan to deliver the plan (prose answers are not read)." });
          continue;
        }
        for (const call of calls) {
          let input: unknown;
          try {
            input = JSON.parse(call.arguments || "{}");
          } catch (e) {
            messages.push({ role: "tool", callId: call.id, name: call.name, content: `error: arguments are not valid JSON: ${errorMessage(e)}`, isError: true });
            continue;
          }
          if (call.name === SUBMIT_PLAN.name) {
            const p = parsePlan(input);
            if (p.ok) return p;
            messages.push({ role: "tool", callId: call.id, name: call.name, content: `error: ${p.error}; call submit_plan again`, isError: true });
            continue;
          }
          const tool = this.toolMap.get(call.name);
          const r = tool ? await host.runTool(tool, input) : { ok: false, output: `unknown tool "${call.name}": the planner has only read-only tools (${[...this.toolMap.keys()].join(", ")}) and submit_plan` };
          messages.push({ role: "tool", callId: call.id, name: call.name, content: r.output, ...(r.ok ? {} : { isError: true }) });
        }
      }
      return { ok: false, error: `no submit_plan after ${PLANNER_MAX_STEPS} research rounds and a final request` };
    } catch (e) {
      return { ok: false, error: errorMessage(e) };
    }
  }
}
