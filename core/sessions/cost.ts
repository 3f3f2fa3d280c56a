/**
 * Spend per turn and per session from a session's history (usage events
 * carry running totals, so the last one of a turn is that turn's spend).
 */
import type { EngineEvent, RoleSpend, Usage, UsageRole } from "../engine/types.ts";

export interface TurnCost {
  turn: number;
  inputTokens: number;
  cacheHitTokens: number;
  outputTokens: number;
  cost?: number;
}

export interface CostReport {
  turns: TurnCost[];
  total: Usage;
  cost?: number;
  saved?: number;
  currency?: string;
  /** The planner's and the Guardian's share of `total` and `cost`. */
  byRole?: Partial<Record<UsageRole, RoleSpend>>;
}

export function costReport(history: EngineEvent[]): CostReport {
  const turns: TurnCost[] = [];
  let turn = 0;
  let last: Extract<EngineEvent, { type: "usage" }> | undefined;
  for (const e of history) {
    if (e.type === "turn_start") turn = e.turn;
    if (e.type !== "usage") continue;
    last = e;
    const row: TurnCost = { turn, inputTokens: e.turn.inputTokens, cacheHitTokens: e.turn.cacheHitTokens, outputTokens: e.turn.outputTokens, ...(e.cost ? { cost: e.cost.turn } : {}) };
    if (turns.at(-1)?.turn === turn) turns[turns.length - 1] = row;
    else turns.push(row);
  }
  const total = last?.total ?? { inputTokens: 0, outputTokens: 0, cacheHitTokens: 0 };
  const c = last?.cost;
  return { turns, total, ...(c ? { cost: c.total, currency: c.currency, ...(last?.cacheSaved ? { saved: last.cacheSaved } : {}) } : {}), ...(last?.byRole ? { byRole: last.byRole } : {}) };
}

/** ", cache saved X", or while cache writes have cost more than reads saved (Anthropic), ", cache writes cost X more than they saved so far". */
export const cacheSavedText = (saved: number | undefined, money: (n: number) => string): string =>
  !saved ? "" : saved > 0 ? `, cache saved ${money(saved)}` : `, cache writes cost ${money(-saved)} more than they saved so far`;

export function formatCostReport(r: CostReport): string {
  const money = (n: number | undefined) => (n === undefined ? "-" : `${n.toFixed(4)} ${r.currency ?? ""}`.trim());
  const lines = r.turns.map((t) => `turn ${t.turn}: ${t.inputTokens} in (${t.cacheHitTokens} cached), ${t.outputTokens} out, ${money(t.cost)}`);
  const pct = r.total.inputTokens > 0 ? Math.round((100 * r.total.cacheHitTokens) / r.total.inputTokens) : 0;
  lines.push(`session: ${r.total.inputTokens} in (${pct}% cached), ${r.total.outputTokens} out, ${r.cost === undefined ? "no prices for this model (set prices in its [[providers]] entry)" : money(r.cost)}${cacheSavedText(r.saved, money)}`);
  // The second models' share, included in the session line above.
  for (const [role, spend] of Object.entries(r.byRole ?? {})) {
    const u = spend.usage;
    lines.push(`  of which ${role}: ${u.inputTokens} in (${u.cacheHitTokens} cached), ${u.outputTokens} out, ${spend.cost === undefined ? "no prices" : money(spend.cost)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** "planner 450000 tokens, 0.5000 USD; guardian 1145 tokens, 0.0009 USD" — the second models' share. */
export function roleSpendText(byRole: Partial<Record<UsageRole, RoleSpend>>, currency?: string): string {
  return Object.entries(byRole)
    .map(([role, s]) => `${role} ${s.usage.inputTokens + s.usage.outputTokens} tokens${s.cost !== undefined ? `, ${s.cost.toFixed(4)}${currency ? ` ${currency}` : ""}` : ""}`)
    .join("; ");
}
