/**
 * The `[agent]` settings of subagents (see docs/subagents.md):
 *   max_subagent_depth (2), max_subagent_concurrency (6), max_parallel_writers (3),
 *   subagent_model, subagent_models = { name = model } (provider entry names, user config only).
 */
export interface AgentLimits {
  /** Root session = depth 0; a child at depth == maxDepth gets no `task` tool. */
  maxDepth: number;
  /** Children running at once in one session tree (more wait for a slot). */
  maxConcurrency: number;
  /** Writer children running at once (and only on non-overlapping write_paths). */
  maxParallelWriters: number;
}

export const DEFAULT_LIMITS: AgentLimits = { maxDepth: 2, maxConcurrency: 6, maxParallelWriters: 3 };

const agentSection = (values: Record<string, unknown>) => (values.agent ?? {}) as Record<string, unknown>;

const positiveInt = (v: unknown, def: number, min = 1): number =>
  typeof v === "number" && Number.isInteger(v) && v >= min ? v : def;

export function agentLimits(values: Record<string, unknown>): AgentLimits {
  const a = agentSection(values);
  return {
    // 0 turns delegation off entirely.
    maxDepth: positiveInt(a.max_subagent_depth, DEFAULT_LIMITS.maxDepth, 0),
    maxConcurrency: positiveInt(a.max_subagent_concurrency, DEFAULT_LIMITS.maxConcurrency),
    maxParallelWriters: positiveInt(a.max_parallel_writers, DEFAULT_LIMITS.maxParallelWriters),
  };
}

/**
 * The provider entry a child runs on: `subagent_models[name]`, else the
 * profile's own `model` (only from a user-scope profile: a repository may not
 * pick models), else `subagent_model`, else the parent's model.
 */
export function childModel(values: Record<string, unknown>, o: { name?: string; profileModel?: string; parentModel: string }): string {
  const a = agentSection(values);
  const per = (a.subagent_models ?? {}) as Record<string, unknown>;
  const named = o.name ? per[o.name] : undefined;
  if (typeof named === "string" && named) return named;
  if (o.profileModel) return o.profileModel;
  if (typeof a.subagent_model === "string" && a.subagent_model) return a.subagent_model;
  return o.parentModel;
}
