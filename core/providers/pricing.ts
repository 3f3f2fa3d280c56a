/**
 * Cost receipts: the embedded rate card (rates.json) priced per vendor and
 * model, dated generations oldest first; a provider entry's own `prices`
 * wins. Vendors are recognised by base_url host only, so a gateway reselling
 * a model at its own price is never guessed.
 */
import type { Usage } from "../engine/types.ts";
import rates from "./rates.json" with { type: "json" };
import { hostOf, onDomain } from "./reasoning.ts";
import type { Prices, ProviderConfig } from "./types.ts";

export type { Prices };

interface Generation { from: string; input: number; cache_hit: number; cache_write?: number; output: number }
interface Vendor { hosts: string[]; models: Record<string, Generation[]> }
const VENDORS = (rates as unknown as { vendors: Record<string, Vendor> }).vendors;


/** The rate card entry for a base URL and model at a date (ISO, default today). */
export function rateCard(baseUrl: string | undefined, model: string, at = new Date().toISOString()): Prices | undefined {
  const h = hostOf(baseUrl);
  const day = at.slice(0, 10);
  for (const [vendor, v] of Object.entries(VENDORS)) {
    if (!v.hosts.some((d) => onDomain(h, d))) continue;
    const key = v.models[model] ? model : Object.keys(v.models).find((k) => k.endsWith("*") && model.startsWith(k.slice(0, -1)));
    if (!key) return undefined;
    const gens = v.models[key]!;
    const g = [...gens].reverse().find((x) => x.from <= day) ?? gens[0]!;
    return { input: g.input, output: g.output, cacheHit: g.cache_hit, ...(g.cache_write !== undefined ? { cacheWrite: g.cache_write } : {}), currency: "USD", source: `rate card ${vendor}/${key} from ${g.from}` };
  }
  return undefined;
}

/** An entry's own `prices` (cache_hit and cache_write default to input), or none. */
export function entryPrices(entry: ProviderConfig): Prices | undefined {
  const p = entry.prices;
  if (!p || (p.input === undefined && p.output === undefined)) return undefined;
  const input = Number(p.input ?? 0);
  return { input, output: Number(p.output ?? 0), cacheHit: Number(p.cache_hit ?? input), ...(p.cache_write !== undefined ? { cacheWrite: Number(p.cache_write) } : {}), currency: p.currency ?? "USD", source: "config" };
}

/** The prices for an entry's model: its own `prices`, else the rate card, else none. */
export function pricesFor(entry: ProviderConfig, model: string, at?: string): Prices | undefined {
  return entryPrices(entry) ?? rateCard(entry.base_url, model, at);
}

/** Cost of one step: cache reads at the cache price, cache writes at the write price, the rest of the input at the input price. */
export const priceOf = (u: Usage, p: Prices): number => {
  const write = u.cacheWriteTokens ?? 0;
  const plain = Math.max(0, u.inputTokens - u.cacheHitTokens - write);
  return (plain * p.input + u.cacheHitTokens * p.cacheHit + write * (p.cacheWrite ?? p.input) + u.outputTokens * p.output) / 1e6;
};

/**
 * What the cache saved on one step: cache reads at the input price minus what
 * they cost, less what writing the cache cost above the input price (so a
 * step that only writes the cache saved a negative amount).
 */
export const savedBy = (u: Usage, p: Prices): number =>
  (u.cacheHitTokens * Math.max(0, p.input - p.cacheHit) - (u.cacheWriteTokens ?? 0) * Math.max(0, (p.cacheWrite ?? p.input) - p.input)) / 1e6;
