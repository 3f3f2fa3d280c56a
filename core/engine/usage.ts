/** Usage records: the tokens of each model call, priced (cost, cache savings) at the prices of the model that spent them. */
import { priceOf, savedBy, type Prices } from "../providers/pricing.ts";
import type { Usage, UsageRole } from "./types.ts";
import type { SessionCore } from "./session-core.ts";

/** Tokens another model (planner, Guardian) spent for this session, at that model's prices. */
export type SecondSpend = { role: UsageRole; prices?: Prices };

/** `by`: a call of the planner's or the Guardian's model, priced at its own prices. */
export function recordUsage(s: SessionCore, turn: number, usage: Usage, by?: SecondSpend): void {
  // The entry's `prices` (engine) first, else the provider's rate card.
  const p = by ? by.prices : s.turnProvider ? (s.turnProvider.prices ?? s.turnProvider.provider.prices) : (s.deps.prices ?? s.deps.provider.prices);
  const cost = p ? priceOf(usage, p) : undefined;
  // Negative when writing the cache cost more than it has saved yet.
  const saved = p && (usage.cacheHitTokens > 0 || (usage.cacheWriteTokens ?? 0) > 0) ? savedBy(usage, p) : 0;
  s.commit({ t: "usage", turn, usage, ...(p ? { cost, currency: p.currency, ...(saved !== 0 ? { saved } : {}) } : {}), ...(by ? { role: by.role } : {}) });
  s.emit(s.state.history[s.state.history.length - 1]!);
}
