/**
 * MCP sign-in from the settings panel: the same flow as `reasonix mcp auth
 * NAME` (core/mcp/auth-flow.ts, a redirect listener on this machine's
 * 127.0.0.1), started here; the browser is handed the authorization URL to
 * open. The flow finishes in the background; its state shows in the panel.
 */
import { loadConfig } from "../config/load.ts";
import { errorMessage } from "../errors.ts";
import { plural } from "../plural.ts";
import { resolveServers } from "../mcp/config.ts";
import { ApiError } from "./api-error.ts";

export interface SignInState {
  state: "waiting" | "done" | "failed";
  message?: string;
}

export class McpSignIns {
  readonly states = new Map<string, SignInState>();

  constructor(private readonly home: string, private readonly workspace: () => string, private readonly onDone: () => void) {}

  /** Start NAME's sign-in: answers with the URL to open, or how it ended when no browser step was needed. */
  async start(name: string): Promise<{ url?: string } & SignInState> {
    if (this.states.get(name)?.state === "waiting") throw new ApiError(409, "signin_running", `a sign-in to "${name}" is already waiting for the browser`);
    const spec = resolveServers(loadConfig({ cwd: this.workspace(), home: this.home }), this.workspace()).servers.find((s) => s.name === name);
    if (!spec) throw new ApiError(404, "unknown_server", `no MCP server named "${name}" is declared for this workspace`);
    this.states.set(name, { state: "waiting" });
    let shown!: (url: string) => void;
    const url = new Promise<string>((r) => (shown = r));
    // The MCP SDK (with zod and ajv) loads here, not when the server starts: it is most of serve's start-up.
    const { authorize } = await import("../mcp/auth-flow.ts");
    const flow = authorize(spec, { home: this.home, openUrl: (u) => shown(u.href), timeoutMs: 300_000 }).then(
      (r) => this.states.set(name, { state: "done", message: `signed in (${plural(r.tools, "tool")})` }),
      (e) => this.states.set(name, { state: "failed", message: errorMessage(e) }),
    ).finally(this.onDone);
    const first = await Promise.race([url, flow.then(() => undefined)]);
    return first ? { url: first, state: "waiting" } : this.states.get(name)!;
  }
}
