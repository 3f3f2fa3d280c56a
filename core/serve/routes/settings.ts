// The settings panel (GET /api/settings and its writes): providers, permission
// rules, default mode and effort, MCP servers, theme. Behind the same Host,
// Origin, Content-Type and credential guards as every /api/ route; a provider
// key or an MCP sign-in only from a loopback listener, like the first-use setup.
// Every write goes through the CLI's own editor (settings-write.ts), then the
// engine is rebuilt so new sessions see it (later, when a turn is running).
import { EFFORT_CHOICES, SELECTABLE_MODES } from "../../protocol/modes.ts";
import { ApiError } from "../api-error.ts";
import { providerSetupRoute, providerSetupStatus } from "../setup-provider.ts";
import { McpSignIns } from "../settings-signin.ts";
import { RULE_KINDS, settingsView, THEMES } from "../settings-view.ts";
import { THEME_STYLES } from "../../protocol/theme.ts";
import { FieldError, settingsWrites, webError } from "../settings-write.ts";
import { need, oneOf, readJson, type Body } from "./body.ts";
import type { ServeApp, ServeDeps } from "./context.ts";
import { json, problem } from "./respond.ts";

export function settingsRoutes(app: ServeApp, deps: ServeDeps): void {
  const { sessions } = deps;
  const home = deps.setupHome;
  const workspace = () => sessions.engineWorkspace;
  const writes = () => settingsWrites({ home, workspace: workspace() });
  const signIns = new McpSignIns(home, workspace, () => void applied());
  const presets = providerSetupStatus().presets;
  const view = () => ({ ...settingsView({ home, workspace: workspace(), secretsAllowed: deps.setupAllowed, live: sessions.mcpServers(), signIns: signIns.states }), presets });

  /** Rebuild the engine so new sessions see the change; with a turn running, once the last one ends. */
  let pending = false;
  const rebuild = async (): Promise<{ applied: boolean; error?: string }> => {
    pending = false;
    const ok = await sessions.build();
    return { applied: ok, ...(ok ? {} : { error: sessions.error }) };
  };
  const applied = async (): Promise<{ applied: boolean; error?: string }> => {
    if (!sessions.anyBusy()) return rebuild();
    if (!pending) sessions.whenIdle(() => void rebuild());
    pending = true;
    return { applied: false };
  };
  /**
   * Keys, new provider entries (one could send a stored key to a URL of its
   * own) and sign-ins: only from a browser on this machine, like the first-use setup.
   */
  const local = () => {
    if (!deps.setupAllowed) throw new ApiError(403, "setup_disabled", "provider entries, keys and sign-ins can only be set from a browser on the server's own machine (a loopback listener, or an SSH tunnel to one)");
  };

  /** A write: the body, the editor, then the engine; an editor's refusal names the form field. */
  const write = (path: string, run: (body: Body) => unknown | Promise<unknown>, rebuild = true) =>
    app.post(path, async (c) => {
      const body = await readJson(c.req.raw);
      let result: unknown;
      try {
        result = await run(body);
      } catch (e) {
        const w = webError(e);
        if (w instanceof FieldError) return json({ error: { code: w.code, message: w.message, ...(w.field ? { field: w.field } : {}) } }, 400);
        throw w;
      }
      const engine = rebuild ? await applied() : undefined;
      return json({ ...(result && typeof result === "object" ? result : {}), ...(engine ? { engine } : {}), settings: view() });
    });

  app.get("/api/settings", () => json({ ...view(), pending }));

  write("/api/settings/providers", (b) => {
    local();
    return providerSetupRoute("save", b, home, b.makeDefault === true);
  });
  write("/api/settings/providers/test", (b) => {
    local();
    return providerSetupRoute("test", b, home);
  }, false);
  write("/api/settings/provider/test", (b) => writes().test(need(b, "name")), false);
  write("/api/settings/provider/default", (b) => {
    const name = need(b, "name");
    writes().setDefault(name);
    sessions.defaultChanged(name);
  });
  write("/api/settings/provider/effort", (b) => writes().effort(need(b, "name"), oneOf(b, "effort", EFFORT_CHOICES, "invalid", `Effort must be one of ${EFFORT_CHOICES.join(", ")}`)));
  write("/api/settings/provider/key", (b) => {
    local();
    const key = need(b, "key");
    return { saved: writes().key(need(b, "name"), key) };
  });

  write("/api/settings/rules", (b) => {
    const op = oneOf(b, "op", ["add", "remove"] as const, "invalid", 'op must be "add" or "remove"');
    const scope = oneOf(b, "scope", ["user", "project"] as const, "invalid", 'Where must be "user" or "project"');
    const kind = oneOf(b, "kind", RULE_KINDS, "invalid", `Kind must be one of ${RULE_KINDS.join(", ")}`);
    return { rule: writes().rule(op, scope, kind, need(b, "rule")) };
  });
  // yolo stays a config/CLI choice, as in the session's mode menu.
  write("/api/settings/mode", (b) => writes().mode(oneOf(b, "mode", SELECTABLE_MODES, "invalid", `Default mode must be one of ${SELECTABLE_MODES.join(", ")} (yolo is set with reasonix config set permissions.mode yolo)`)));
  write("/api/settings/theme", (b) => writes().theme(b.style !== undefined && b.theme === undefined ? { style: oneOf(b, "style", THEME_STYLES, "invalid", `Style must be one of ${THEME_STYLES.join(", ")}`) } : { mode: oneOf(b, "theme", THEMES, "invalid", `Theme must be one of ${THEMES.join(", ")}`) }), false);

  const mcpRow = (b: Body) => {
    const name = need(b, "name");
    const row = view().mcp.find((r) => r.name === name);
    if (!row) throw new ApiError(404, "unknown_server", `no MCP server named "${name}" is declared for this workspace`);
    return row;
  };
  write("/api/settings/mcp", (b) => {
    if (typeof b.enabled !== "boolean") throw new FieldError("enabled", '"enabled" must be true or false');
    writes().mcpEnabled(mcpRow(b), b.enabled);
  });
  app.post("/api/settings/mcp/signin", async (c) => {
    local();
    const row = mcpRow(await readJson(c.req.raw));
    if (!row.remote) return problem(400, "not_remote", `"${row.name}" runs on this machine (stdio); sign-in is for http and sse servers`);
    return json(await signIns.start(row.name));
  });
}
