// The workspace as the UI sees it: trust (review and approve project inputs),
// file search for @-mentions, and the slash-command catalogue, notes and completion.
import { need, readJson, seenDigests } from "./body.ts";
import type { ServeApp, ServeDeps } from "./context.ts";
import { json } from "./respond.ts";

export function workspaceRoutes(app: ServeApp, { trust, sessions, files, commands }: ServeDeps): void {
  app.get("/api/trust", () => json(trust.report()));
  app.post("/api/trust", async (c) => {
    const report = trust.approve(seenDigests(await readJson(c.req.raw)));
    // New sessions must see the approved settings: rebuild the engine.
    const ok = await sessions.build();
    return json({ ...report, engine: { ready: ok, error: sessions.error } });
  });

  app.get("/api/files", (c) => json({ files: files.search((c.env.url.searchParams.get("q") ?? "").slice(0, 200)) }));

  app.get("/api/commands", () => json(commands.catalog()));
  app.post("/api/note", async (c) => json(commands.note(need(await readJson(c.req.raw), "text"))));
  app.get("/api/complete", (c) => json(commands.complete((c.env.url.searchParams.get("prefix") ?? "").slice(0, 1000))));
}
