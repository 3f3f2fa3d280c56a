// The server and engine at a glance: status (header, setup state, last event
// number), the models on offer, and the model new sessions start with.
import { providerSetupStatus } from "../setup-provider.ts";
import { uiLanguage } from "../ui-language.ts";
import { effectiveTheme } from "../../config/theme.ts";
import { need, readJson } from "./body.ts";
import type { ServeApp, ServeDeps } from "./context.ts";
import { json } from "./respond.ts";

export function statusRoutes(app: ServeApp, deps: ServeDeps): void {
  const { opts, sessions, hub } = deps;
  const status = () => {
    const sel = sessions.selected();
    const first = deps.noProvider();
    const shown = effectiveTheme(deps.setupHome);
    return {
      version: opts.version,
      host: deps.hostname,
      workspace: sessions.engineWorkspace,
      authMode: deps.auth.mode,
      engine: { ready: sessions.ready, error: sessions.error },
      model: sessions.selectedModel ?? sel?.name ?? null,
      setup: {
        // No provider at all (first use) opens the provider setup too (see setup-provider.ts).
        ...(first ? providerSetupStatus() : {}),
        required: first || (sessions.ready ? !!sel && !sel.hasKey : false),
        allowed: deps.setupAllowed,
        provider: sel?.name ?? null,
        apiKeyEnv: sel?.apiKeyEnv ?? null,
      },
      lastSeq: hub.lastSeq,
      /** The saved theme (`[ui] theme`, REASONIX_THEME for this run) and accent style, applied as the page loads. */
      theme: shown.mode,
      themeStyle: shown.style,
      /** The interface language (core/protocol/i18n), applied as the page loads. */
      language: uiLanguage(deps.setupHome),
    };
  };

  app.get("/api/status", () => json(status()));
  app.get("/api/models", () => json({ selected: sessions.selectedModel ?? sessions.selected()?.name ?? null, models: sessions.models() }));
  app.post("/api/model", async (c) => {
    sessions.setModel(need(await readJson(c.req.raw), "name"));
    return json({ selected: sessions.selectedModel });
  });
}
