/** The `[guardian]` settings and the Guardian a session gets from them (none when disabled). */
import type { PermissionMode } from "../engine/types.ts";
import type { PathPolicy } from "../policy/paths.ts";
import type { RetryPolicy } from "../providers/retry.ts";
import { secondModel } from "../providers/second-model.ts";
import type { ProviderDeps } from "../providers/registry.ts";
import type { Provider, ProviderConfig } from "../providers/types.ts";
import { Guardian } from "./guardian.ts";
import { guardianTimeoutSeconds } from "../config/limits.ts";

export const DEFAULT_GUARDIAN_TIMEOUT_SECONDS = 60; // core/config/limits.ts guardianTimeoutSeconds

export interface GuardianSettings {
  enabled: boolean;
  /** Provider entry of the reviewer; absent: the session's own model. */
  model?: string;
  timeoutSeconds: number;
}

export function guardianSettings(values: Record<string, unknown>): GuardianSettings {
  const g = (values.guardian ?? {}) as Record<string, unknown>;
  return {
    enabled: g.enabled === true,
    ...(typeof g.model === "string" && g.model.trim() ? { model: g.model.trim() } : {}),
    timeoutSeconds: guardianTimeoutSeconds(values),
  };
}

export function createGuardian(o: {
  values: Record<string, unknown>;
  sources?: Map<string, string>;
  entries: ProviderConfig[];
  deps: ProviderDeps;
  /** The session's own provider and name, used when [guardian] model is unset. */
  session: { provider: Provider; name: string };
  retry: RetryPolicy;
  workspace: string;
  pathPolicy?: PathPolicy;
  headless: boolean;
  mode(): PermissionMode;
}): Guardian | undefined {
  const s = guardianSettings(o.values);
  if (!s.enabled) return undefined;
  const m = s.model ? secondModel({ entries: o.entries, wanted: s.model, setting: "guardian.model", source: o.sources?.get("guardian.model"), deps: o.deps }) : o.session;
  return new Guardian({
    provider: m.provider,
    modelName: m.name,
    timeoutMs: s.timeoutSeconds * 1000,
    // One retry at most: the timeout bounds the whole review anyway.
    retry: { ...o.retry, maxAttempts: Math.min(o.retry.maxAttempts, 2) },
    workspace: o.workspace,
    pathPolicy: o.pathPolicy,
    headless: o.headless,
    mode: o.mode,
  });
}
