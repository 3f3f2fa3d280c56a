// Loading this module registers every built-in provider kind.
import "./openai.ts";
import "./anthropic.ts";
import "./responses.ts";

export { createProvider, providerKinds, registerProviderKind } from "./registry.ts";
export { modelInfos, providerEntries, selectModel } from "./config.ts";
export { chatWithRetry, defaultRetryPolicy, type RetryPolicy } from "./retry.ts";
export { ProviderError } from "./errors.ts";
export type * from "./types.ts";
