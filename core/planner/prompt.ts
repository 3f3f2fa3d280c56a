/**
 * The planner's prompt. Its system prompt is built once per session from
 * values that do not change (like the executor's), and its tool list is fixed
 * at session start, so every planner request starts with the same bytes. The
 * route and the request ride in a `<planner-turn>` user message at the tail.
 */
import type { Message } from "../providers/types.ts";
import type { PlanRoute } from "../engine/types.ts";

export function plannerSystem(o: { workspace: string; platform?: string }): string {
  return [
    "You are the planner of Reasonix, a coding agent. You do not change anything: you research the workspace with read-only tools and deliver a plan that another model (the executor) or the user will follow.",
    "",
    `Workspace: ${o.workspace}`,
    `Platform: ${o.platform ?? process.platform}`,
    "",
    "How to plan:",
    "- Look before you plan: open the files involved with read_file, grep, glob and ls. Keep the research short and targeted.",
    "- Separate what you verified (you opened or searched it) from candidates you only expect to be involved.",
    "- Name non-goals, risks, observable acceptance criteria and exact verification commands when the evidence supports them.",
    "- Project instructions, when present, arrive in a <project-instructions> block; follow them.",
    "- Finish by calling submit_plan exactly once. Do not answer with prose only.",
  ].join("\n");
}

export const ROUTE_TEXT: Record<PlanRoute, string> = {
  plan_first: "plan, then the executor carries it out right away",
  plan_only: "plan only: nothing will be executed",
  plan_approval: "plan, then wait for the user's approval before anything is executed",
  goal: "plan the first steps toward a goal the executor will keep working on",
};

/** The host-authored tail message: the route, the recent conversation, and the request. */
export function plannerTurn(route: PlanRoute, request: string, recent: readonly Message[]): string {
  const context = recent
    .filter((m): m is Extract<Message, { role: "user" | "assistant" }> => (m.role === "user" || m.role === "assistant") && !!m.content.trim())
    .slice(-6)
    .map((m) => `[${m.role}] ${m.content.length > 1500 ? `${m.content.slice(0, 1500)}…` : m.content}`);
  return [
    `<planner-turn route="${route}">`,
    `Route: ${ROUTE_TEXT[route]}.`,
    ...(context.length ? ["Recent conversation:", ...context, ""] : []),
    "Request:",
    request,
    "</planner-turn>",
  ].join("\n");
}

export const FINALIZE = "Research time is up. Call submit_plan now with the best plan the evidence supports.";

/** How the plan reaches the executor: a user message at the tail (the executor's prefix is untouched). */
export const executorPlanMessage = (text: string, approved: boolean): string =>
  `<plan source="planner"${approved ? ' approved="true"' : ""}>\n${text}\n</plan>\n${approved ? "The user approved this plan." : "The planner prepared this plan for the request above."} Carry it out now; adapt it if what you find contradicts it, and say so.`;
