/** `[agent] planner_model` → the session's Planner (none when unset). */
import type { RetryPolicy } from "../providers/retry.ts";
import type { ProviderDeps } from "../providers/registry.ts";
import { secondModel } from "../providers/second-model.ts";
import type { ProviderConfig } from "../providers/types.ts";
import { readOnlyTools } from "../tools/readonly.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { Planner } from "./planner.ts";
// Goal start asks the session's planner for a plan (core/goal hooks).
import "./goal-hook.ts";

export function plannerModelName(values: Record<string, unknown>): string | undefined {
  const v = ((values.agent ?? {}) as Record<string, unknown>).planner_model;
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

export function createPlanner(o: {
  values: Record<string, unknown>;
  sources?: Map<string, string>;
  entries: ProviderConfig[];
  deps: ProviderDeps;
  workspace: string;
  /** The session's tools; the planner gets the strict read-only subset. */
  tools: ToolDefinition[];
  retry: RetryPolicy;
}): Planner | undefined {
  const wanted = plannerModelName(o.values);
  if (!wanted) return undefined;
  const m = secondModel({ entries: o.entries, wanted, setting: "agent.planner_model", source: o.sources?.get("agent.planner_model"), deps: o.deps });
  return new Planner({ provider: m.provider, modelName: m.name, workspace: o.workspace, tools: readOnlyTools(o.tools), retry: o.retry });
}
