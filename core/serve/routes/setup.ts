// First-use provider setup from the browser: only on a loopback listener (or
// the end of an SSH tunnel), and only while no provider is configured.
import { ApiError } from "../api-error.ts";
import { providerSetupRoute } from "../setup-provider.ts";
import { need, readJson, str } from "./body.ts";
import type { ServeApp, ServeDeps } from "./context.ts";
import { json } from "./respond.ts";

/** Variable names the setup page may write to $REASONIX_HOME/.env. */
const CREDENTIAL_NAME = /^[A-Za-z][A-Za-z0-9_]*_(?:KEY|TOKEN|SECRET)$/i;

export function setupRoutes(app: ServeApp, deps: ServeDeps): void {
  const { opts, sessions } = deps;

  const provider = (kind: "save" | "test") => app.post(kind === "test" ? "/api/setup/provider/test" : "/api/setup/provider", async (c) => {
    if (!deps.setupAllowed) throw new ApiError(403, "setup_disabled", "provider setup is only available on a loopback listener; run `reasonix setup` on the server host instead");
    // First use only: with a provider configured, changes go through `reasonix setup` on the host.
    if (!deps.noProvider()) throw new ApiError(409, "provider_exists", "a provider is already configured; use `reasonix setup` on the server host to add another");
    const result = await providerSetupRoute(kind, await readJson(c.req.raw), deps.setupHome);
    if (kind === "test") return json(result);
    const ok = await sessions.build();
    return json({ ...result, engine: { ready: ok, error: sessions.error } }, ok ? 200 : 500);
  });
  provider("save");
  provider("test");

  app.post("/api/setup/key", async (c) => {
    if (!deps.setupAllowed || !opts.saveProviderKey) throw new ApiError(403, "setup_disabled", "provider setup is only available on a loopback listener; set the key on the server host instead");
    const body = await readJson(c.req.raw);
    const key = need(body, "key").trim();
    if (/[\r\n]/.test(key)) throw new ApiError(400, "bad_key", "the key must be a single line");
    const wanted = str(body, "provider", false);
    const target = wanted ? sessions.models().find((m) => m.name === wanted) : sessions.selected();
    if (!target?.apiKeyEnv) throw new ApiError(400, "no_provider", "no provider with an api_key_env to store a key for");
    // Provider entries may come from a project's own config: never let one
    // steer a pasted key into PATH, LD_PRELOAD or any other non-credential name.
    if (!CREDENTIAL_NAME.test(target.apiKeyEnv))
      throw new ApiError(400, "bad_env_name", `refusing to store a key as ${target.apiKeyEnv}: api_key_env must end in _KEY, _TOKEN or _SECRET; set it on the server host instead`);
    opts.saveProviderKey(target.apiKeyEnv, key);
    const ok = await sessions.build();
    return json({ saved: target.apiKeyEnv, engine: { ready: ok, error: sessions.error } }, ok ? 200 : 500);
  });
}
