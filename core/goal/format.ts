/** How goal events and /goal status read as text, shared by the terminal front ends and ACP. */
import type { EngineEvent, GoalView } from "../engine/types.ts";

type GoalEvent = Extract<EngineEvent, { type: "goal" }>;

const clip = (s: string, n = 200) => {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** "3 turns · 7 requests · 12,345 tokens · 2m 5s work" (+ the budget when one is set). */
export function goalStats(g: GoalView): string {
  const budget = g.tokenBudget > 0 ? ` (budget ${(g.tokens - g.budgetFrom).toLocaleString("en-US")}/${g.tokenBudget.toLocaleString("en-US")} this slice)` : "";
  return `${g.turns} turn${g.turns === 1 ? "" : "s"} · ${g.requests} request${g.requests === 1 ? "" : "s"} · ${g.tokens.toLocaleString("en-US")} tokens${budget} · ${formatDuration(g.workMs)} work`;
}

/** One line for a goal event; undefined for changes not worth a line (a plain continue). */
export function goalEventLine(e: GoalEvent): string | undefined {
  const g = e.goal;
  switch (e.change) {
    case "started":
      return `goal started: ${clip(g.objective)}`;
    case "resumed":
      return `goal resumed: ${clip(g.objective)}`;
    case "turn":
      return `goal turn ${g.turns} done, continuing${e.message ? ` (${clip(e.message, 160)})` : g.evidence ? `: ${clip(g.evidence, 160)}` : ""}`;
    case "redirect":
      return `goal: ${e.message ?? "strategy redirect"}`;
    case "signoff":
      return `goal: ${clip(e.message ?? "step signed off")}`;
    case "paused":
      return `goal paused: ${g.reason ?? "paused"}${e.message ? `\n${e.message}` : ""}`;
    case "blocked":
      return `goal blocked: ${g.reason ?? "the model needs the user"}`;
    case "complete":
      return `goal complete: ${clip(g.reason ?? "", 300)}${g.unverified?.length ? ` (unverified: ${g.unverified.join("; ")})` : ""}`;
    case "cleared":
      return "goal cleared";
  }
}

/** `/goal status` as lines. */
export function goalStatusLines(g: GoalView | undefined, running: boolean): string[] {
  if (!g) return ["no goal in this session; start one with /goal <objective>"];
  return [
    `goal: ${clip(g.objective, 300)}`,
    `status: ${g.status}${g.status === "active" && !running ? " (not running)" : ""}${g.reason ? ` — ${g.reason}` : ""}`,
    goalStats(g),
    ...(g.maxTurns > 0 ? [`turn limit: ${g.turns - g.turnsFrom}/${g.maxTurns} this slice`] : []),
    ...(g.signoffs.length ? [`signed off: ${g.signoffs.map((s) => clip(s.step, 60)).join(" → ")}`] : []),
    ...(g.evidence ? [`last evidence: ${clip(g.evidence, 300)}`] : []),
  ];
}

export const GOAL_USAGE = "/goal <objective> | /goal status | /goal pause | /goal resume | /goal clear";
