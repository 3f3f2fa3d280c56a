// How the numeric limits are read where they are enforced, in one place: the
// code that enforces a limit and the trust policy (an untrusted project may
// only lower a limit, core/trust/policy.ts) must read a value the same way.
// Several treat 0 as "no limit" and fall back to the default on values out of
// range, so "lower" is judged on the effective value, never on the number.

type Values = Record<string, unknown>;
const section = (v: Values, name: string) => (v[name] ?? {}) as Record<string, unknown>;
const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** [tools] bash_timeout_seconds in seconds; 0 = no timeout. */
export function bashTimeoutCap(values: Values): number {
  const v = section(values, "tools").bash_timeout_seconds;
  return finite(v) && v >= 0 ? v : 120;
}

/** [tools] bash_output_limit in bytes. */
export function bashOutputLimit(values: Values): number {
  const v = section(values, "tools").bash_output_limit;
  return finite(v) && v > 0 ? v : 30_000;
}

/** [agent] max_steps. */
export function maxStepsOf(values: Values): number {
  const v = section(values, "agent").max_steps;
  return finite(v) && v > 0 ? v : 50;
}

/** [agent] max_output_tokens; 0 = the provider's default (no limit of ours). */
export function maxOutputTokensOf(values: Values): number {
  const v = section(values, "agent").max_output_tokens;
  return finite(v) && v > 0 ? v : 0;
}

/** [guardian] timeout_seconds. */
export function guardianTimeoutSeconds(values: Values): number {
  const v = section(values, "guardian").timeout_seconds;
  return finite(v) && v > 0 ? v : 60;
}
