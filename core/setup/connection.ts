/**
 * `reasonix setup test`: reach a provider once and say what happened. Lists
 * the models (cheap, no tokens); when the endpoint has no model list, sends a
 * one-token request instead. Reports the latency and the provider's exact error.
 */
import { errorMessage } from "../errors.ts";
import { homePaths, reasonixHome } from "../home.ts";
import { createProvider, ProviderError } from "../providers/index.ts";
import type { ProviderConfig } from "../providers/types.ts";
import { SecretStore } from "../secrets/dotenv.ts";

export interface ConnectionResult {
  ok: boolean;
  /** What was tried last: the model list, or a one-token chat request. */
  method: "models" | "chat";
  /** Wall time of that request, from sending to the full answer (or the failure). */
  latencyMs: number;
  /** Model ids the endpoint lists (method "models"). */
  models?: string[];
  /** The error as the provider layer words it (status, host, next step). */
  error?: string;
  /** ProviderError kind ("auth", "network", …) when there is one. */
  errorKind?: string;
}

export interface ConnectionOptions {
  home?: string;
  /** A key to try instead of the stored one (the wizard tests before it saves). */
  key?: string;
  timeoutMs?: number;
}

/** The model list has no such route here: fall back to a one-token request. */
const noModelList = (e: unknown) =>
  e instanceof ProviderError && (e.status === 404 || e.status === 405 || (e.kind === "bad_request" && /did not return a model list/.test(e.message)));

export async function testConnection(entry: ProviderConfig, opts: ConnectionOptions = {}): Promise<ConnectionResult> {
  const secretsFile = homePaths(opts.home ?? reasonixHome()).dotenv;
  const store = new SecretStore(secretsFile);
  const secret = (name: string) => (opts.key !== undefined && name === entry.api_key_env ? opts.key : store.get(name));
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const fail = (method: ConnectionResult["method"], started: number, e: unknown): ConnectionResult => ({
    ok: false,
    method,
    latencyMs: Math.round(performance.now() - started),
    error: errorMessage(e),
    ...(e instanceof ProviderError ? { errorKind: e.kind } : {}),
  });
  let started = performance.now();
  let provider: ReturnType<typeof createProvider>;
  try {
    provider = createProvider({ ...entry, model: entry.model ?? entry.models?.[0] }, { secret, secretsFile });
  } catch (e) {
    return fail("models", started, e);
  }
  try {
    const models = await provider.listModels(AbortSignal.timeout(timeoutMs));
    return { ok: true, method: "models", latencyMs: Math.round(performance.now() - started), models };
  } catch (e) {
    if (!noModelList(e)) return fail("models", started, timedOut(e, timeoutMs));
    // No list and no model to ask for: say so rather than invent a model id.
    if (!entry.model && !entry.models?.length) return fail("models", started, new Error(`${errorMessage(e)}; give a model id to test with a one-token request instead`));
  }
  started = performance.now();
  try {
    await provider.chat({ system: "", tools: [], messages: [{ role: "user", content: "Reply with one word." }], maxOutputTokens: 1 }, {}, AbortSignal.timeout(timeoutMs));
    return { ok: true, method: "chat", latencyMs: Math.round(performance.now() - started) };
  } catch (e) {
    return fail("chat", started, timedOut(e, timeoutMs));
  }
}

const timedOut = (e: unknown, ms: number) =>
  e instanceof Error && (e.name === "TimeoutError" || (e instanceof ProviderError && e.kind === "aborted")) ? new Error(`no answer within ${Math.round(ms / 1000)} s (${errorMessage(e)})`) : e;
