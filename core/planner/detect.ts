/**
 * Which requests go to the planner: a pure, deterministic reading of the
 * user's own words, no classifier model. Only explicit requests count —
 * "plan first", "plan only" / "don't execute", "wait for my approval" — and
 * text inside quotes, code spans, code blocks or quoted lines (`> …`) is an
 * example, not a request, so it is ignored. Ordinary requests (and "just do
 * it") stay with the executor.
 */
import type { PlanRoute } from "../engine/types.ts";

/** Remove what the user quotes rather than says. */
export function unquoted(text: string): string {
  return text
    .replace(/```[\s\S]*?(```|$)/g, " ")
    .replace(/`[^`\n]*`/g, " ")
    .replace(/^\s*>.*$/gm, " ")
    .replace(/"[^"\n]*"/g, " ")
    .replace(/“[^”\n]*”/g, " ")
    .replace(/‘[^’\n]*’/g, " ")
    .replace(/「[^」\n]*」/g, " ")
    // 'single quotes' only as a pair around words (an apostrophe as in don't stays).
    .replace(/(^|[\s(:,])'[^'\n]+'(?=$|[\s.,;:!?)])/g, "$1 ");
}

const NEGATED_PLAN = /\b(?:don'?t|do not|no need to|never|skip(?: the)?|without(?: a)?)\s+(?:a\s+)?plan(?:ning)?(?:\s+first)?\b/g;

const APPROVAL: RegExp[] = [
  /\b(?:wait|pause|stop)\b[^.!?\n]{0,40}\b(?:approv\w*|confirm\w*|go[- ]ahead|my ok|sign[- ]?off|review)\b/,
  /\b(?:before|until|till)\s+(?:i|you get my|we)\s+(?:approve|confirm|review|sign off|say go)\b/,
  /\b(?:for|after|await)\s+my\s+(?:approval|confirmation|go[- ]ahead|ok|sign[- ]?off|review)\b/,
  /\bask\s+(?:me\s+)?(?:for\s+(?:my\s+)?approval|before\s+(?:executing|implementing|starting|you\s+start|making\s+changes))\b/,
  /\bget\s+my\s+approval\b/,
  /等我确认|等待(?:我的)?确认|确认后再|批准后再|等我批准/,
];

const PLAN_ONLY: RegExp[] = [
  /\bplan[- ]only\b/,
  /\bonly\s+(?:make|write|draft|produce|give\s+me|create|need)\s+(?:a\s+|the\s+)?plan\b/,
  /\bjust\s+(?:a|the)\s+plan\b/,
  /\b(?:don'?t|do\s+not|dont)\s+(?:execute|implement|make\s+(?:any\s+)?changes|change\s+anything|modify\s+anything|edit\s+anything|write\s+(?:any\s+)?code|start\s+(?:coding|implementing))\b/,
  /\bwithout\s+(?:executing|implementing|making\s+(?:any\s+)?changes|changing\s+anything)\b/,
  /不要执行|只做规划|只规划|仅规划|只出计划|不要修改/,
];

const PLAN_FIRST: RegExp[] = [
  /\bplan\s+(?:it\s+|this\s+|that\s+)?(?:out\s+)?first\b/,
  /\bfirst,?\s+(?:make|write|draft|come\s+up\s+with|create|do)\s+(?:a|the)\s+plan\b/,
  /\b(?:make|write|draft|create)\s+a\s+plan\s+(?:and\s+)?then\b/,
  /\bplan\s+(?:it\s+|this\s+)?(?:out\s+)?(?:before|then)\s+(?:you\s+)?(?:implement|execute|start|code|coding|change|do)/,
  /\bplan,\s*then\b/,
  /先规划|先做计划|先制定计划|先出计划/,
];

const JUST_DO_IT = /\bjust\s+do\s+it\b|直接改|直接做/;

/** The planner route the request explicitly asks for, or null (the executor handles it). */
export function detectPlanRoute(prompt: string): Exclude<PlanRoute, "goal"> | null {
  const text = unquoted(prompt).toLowerCase().replace(NEGATED_PLAN, " ").replace(/\s+/g, " ");
  if (APPROVAL.some((r) => r.test(text))) return "plan_approval";
  if (PLAN_ONLY.some((r) => r.test(text))) return "plan_only";
  if (JUST_DO_IT.test(text)) return null;
  if (PLAN_FIRST.some((r) => r.test(text))) return "plan_first";
  return null;
}
