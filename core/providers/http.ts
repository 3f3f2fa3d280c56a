import { ProviderError, httpError } from "./errors.ts";

/** Join a base URL and a path without doubling or dropping slashes. */
export const joinUrl = (base: string, path: string): string => `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;

/** fetch() with provider-flavoured errors (network failures, HTTP status mapping). */
export async function providerFetch(
  url: string,
  init: RequestInit,
  ctx: { provider: string; apiKeyEnv?: string },
): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    if (init.signal?.aborted) throw new ProviderError("aborted", "request cancelled", { cause: e });
    throw new ProviderError("network", `cannot reach provider "${ctx.provider}" at ${url}: ${(e as Error).message}`, { cause: e });
  }
  if (!res.ok) {
    const body = await res.text().catch(() => "");
    throw httpError(res.status, body, { ...ctx, headers: res.headers });
  }
  return res;
}

/** GET a model list in the OpenAI (`{data:[{id}]}`) or Anthropic shape. */
export async function fetchModelList(url: string, headers: Record<string, string>, ctx: { provider: string; apiKeyEnv?: string }, signal?: AbortSignal): Promise<string[]> {
  const res = await providerFetch(url, { headers, signal }, ctx);
  const j = (await res.json().catch(() => null)) as any;
  const list = Array.isArray(j?.data) ? j.data : Array.isArray(j?.models) ? j.models : Array.isArray(j) ? j : null;
  if (!list) throw new ProviderError("bad_request", `provider "${ctx.provider}": ${url} did not return a model list`);
  return list.map((m: any) => (typeof m === "string" ? m : String(m?.id ?? m?.name ?? ""))).filter(Boolean);
}
