/** Goal mode's settings from `[agent]` (see core/config/schema.ts and docs/goal.md). */

export interface GoalSettings {
  /** Goal turns per run/resume slice; 0 = no limit. */
  maxTurns: number;
  /** Tokens per run/resume slice before the summary + pause; 0 = off. */
  tokenBudget: number;
  /** The evaluator call's deadline. */
  evaluatorTimeoutMs: number;
  /** Model rounds without progress before a strategy redirect. */
  stallRounds: number;
}

export const GOAL_DEFAULTS = { maxTurns: 100, tokenBudget: 0, evaluatorTimeoutSeconds: 60, stallRounds: 8 } as const;

const whole = (v: unknown, def: number): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : def);

export function goalSettings(config: Record<string, unknown>): GoalSettings {
  const agent = (config.agent ?? {}) as Record<string, unknown>;
  const seconds = typeof agent.goal_evaluator_timeout_seconds === "number" && agent.goal_evaluator_timeout_seconds > 0 ? agent.goal_evaluator_timeout_seconds : GOAL_DEFAULTS.evaluatorTimeoutSeconds;
  return {
    maxTurns: whole(agent.goal_max_turns, GOAL_DEFAULTS.maxTurns),
    tokenBudget: whole(agent.goal_token_budget, GOAL_DEFAULTS.tokenBudget),
    evaluatorTimeoutMs: Math.round(seconds * 1000),
    stallRounds: GOAL_DEFAULTS.stallRounds,
  };
}
