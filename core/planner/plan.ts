/** The submit_plan tool the planner must finish with, its checks, and the plan as Markdown. */
import type { Plan } from "../engine/types.ts";
import type { ToolSchema } from "../providers/types.ts";

const list = (description: string) => ({ type: "array", items: { type: "string" }, description });

export const SUBMIT_PLAN: ToolSchema = {
  name: "submit_plan",
  description: "Deliver the finished plan. Call it exactly once, when your research is done; the plan is what the executor (or the user) receives.",
  inputSchema: {
    type: "object",
    properties: {
      summary: { type: "string", description: "the goal and the approach, in two or three sentences" },
      steps: list("ordered, concrete steps for the executor"),
      verified_touchpoints: list("files/symbols you actually opened or searched and will change or rely on"),
      candidate_touchpoints: list("files/symbols you expect are involved but did not verify"),
      non_goals: list("what this change deliberately leaves alone"),
      risks: list("what could go wrong, and how to notice"),
      acceptance_criteria: list("observable conditions that mean the work is done"),
      verification_commands: list("exact commands that check it (tests, builds, linters)"),
    },
    required: ["summary", "steps", "verified_touchpoints", "candidate_touchpoints", "non_goals", "risks", "acceptance_criteria", "verification_commands"],
    additionalProperties: false,
  },
};

const FIELDS: [keyof Plan, string][] = [
  ["steps", "steps"],
  ["verifiedTouchpoints", "verified_touchpoints"],
  ["candidateTouchpoints", "candidate_touchpoints"],
  ["nonGoals", "non_goals"],
  ["risks", "risks"],
  ["acceptanceCriteria", "acceptance_criteria"],
  ["verificationCommands", "verification_commands"],
];

/** submit_plan's arguments → a Plan, or what is wrong (told to the planner so it can resubmit). */
export function parsePlan(input: unknown): { ok: true; plan: Plan } | { ok: false; error: string } {
  if (!input || typeof input !== "object" || Array.isArray(input)) return { ok: false, error: "submit_plan needs a JSON object" };
  const o = input as Record<string, unknown>;
  if (typeof o.summary !== "string" || !o.summary.trim()) return { ok: false, error: "summary must be a non-empty string" };
  const plan: Partial<Plan> = { summary: o.summary.trim() };
  for (const [key, wire] of FIELDS) {
    const v = o[wire];
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) return { ok: false, error: `${wire} must be an array of strings (empty when there is nothing to say)` };
    (plan as Record<string, unknown>)[key] = v.map((x: string) => x.trim()).filter(Boolean);
  }
  if (plan.steps!.length === 0) return { ok: false, error: "steps must name at least one step" };
  return { ok: true, plan: plan as Plan };
}

export function renderPlan(p: Plan): string {
  const section = (title: string, items: string[], numbered = false) =>
    items.length ? [`### ${title}`, ...items.map((x, i) => (numbered ? `${i + 1}. ${x}` : `- ${x}`)), ""] : [];
  return [
    "## Plan",
    p.summary,
    "",
    ...section("Steps", p.steps, true),
    ...section("Verified touchpoints", p.verifiedTouchpoints),
    ...section("Candidate touchpoints (not verified)", p.candidateTouchpoints),
    ...section("Non-goals", p.nonGoals),
    ...section("Risks", p.risks),
    ...section("Acceptance criteria", p.acceptanceCriteria),
    ...section("Verification", p.verificationCommands.map((c) => `\`${c}\``)),
  ].join("\n").trimEnd();
}
