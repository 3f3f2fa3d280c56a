/**
 * The web UI's first-run provider setup: the same presets, connection test and
 * user-config edit as `reasonix setup`, over two routes. Only offered where the
 * key page is (a loopback listener, an authenticated browser): the routes write
 * the user's config and .env on this host.
 */
import { ReasonixError } from "../errors.ts";
import { testConnection } from "../setup/connection.ts";
import { entryFromInput } from "../setup/entry.ts";
import { PRESETS } from "../setup/presets.ts";
import { PROVIDER_NAME_RE, addProvider, checkEntry, storeKey } from "../setup/providers.ts";

/** What /api/status adds under `setup` on first use (no provider at all): the presets to offer. */
export function providerSetupStatus(): { noProvider: true; presets: { id: string; label: string; needsKey: boolean; hasModel: boolean; custom: boolean }[] } {
  return {
    noProvider: true,
    presets: PRESETS.map((p) => ({ id: p.id, label: p.label, needsKey: !!p.keyEnv, hasModel: !!p.model, custom: !p.baseUrl })),
  };
}

const str = (body: Record<string, unknown>, key: string): string | undefined => {
  const v = body[key];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") throw new ReasonixError("bad_request", `"${key}" must be a string`, { exitCode: 2 });
  return v.trim();
};

/**
 * POST /api/setup/provider/test → the connection result (latency, models, the exact error);
 * POST /api/setup/provider → writes the entry (as default_model) and its key. Bad input throws a
 * ReasonixError, which the server answers with 400 and the message.
 */
export async function providerSetupRoute(action: "test" | "save", body: Record<string, unknown>, home: string, makeDefault = true): Promise<Record<string, unknown>> {
  const key = str(body, "key");
  if (key !== undefined && /[\r\n]/.test(key)) throw new ReasonixError("bad_key", "the key must be a single line", { exitCode: 2 });
  const name = str(body, "name") ?? str(body, "preset") ?? "custom";
  if (!PROVIDER_NAME_RE.test(name)) throw new ReasonixError("bad_request", `provider name "${name}" is not usable (letters, digits, '.', '_', '-')`, { exitCode: 2 });
  const { entry } = entryFromInput({ name, preset: str(body, "preset"), baseUrl: str(body, "baseUrl"), kind: str(body, "kind"), model: str(body, "model"), withKey: key !== undefined }, action === "save", "form");
  if (action === "test") return { ...(await testConnection(entry, { home, key })) };
  checkEntry(entry, "form");
  // The entry first: a refused one (duplicate name) leaves .env untouched.
  const { path } = addProvider(entry, { home, makeDefault });
  if (entry.api_key_env && key !== undefined) storeKey(entry.api_key_env, key, home);
  return { saved: entry.name, model: entry.model, config: path };
}
