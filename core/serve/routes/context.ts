// What every route module is given: the server's parts (`ServeDeps`) and the
// per-request bindings Bun.serve hands over (`ServeEnv`). A new resource is one
// file exporting `(app: ServeApp, deps: ServeDeps) => void`, registered in app.ts.
import type { Server } from "bun";
import type { Hono } from "hono";
import type { AuthConfig, CookieSigner, RateLimiter } from "../auth.ts";
import type { commandsApi } from "../commands.ts";
import type { EventHub } from "../events.ts";
import type { WorkspaceFiles } from "../files.ts";
import type { RequestGuard } from "../guard.ts";
import type { ServerOptions } from "../options.ts";
import type { SessionManager } from "../sessions.ts";
import type { TrustApi } from "../trust.ts";

/** What a live-event WebSocket carries from its upgrade to its handlers. */
export interface WsData {
  since?: number;
  detach?: () => void;
}

/** Per request: Bun's server (for upgrade, timeouts and the peer address) and the parsed URL. */
export interface ServeBindings {
  server: Server<WsData>;
  /** Parsed once before routing; routes match its raw (still %-escaped) pathname. */
  url: URL;
  /** The request was HEAD (routed as GET; Bun sends the headers only). */
  head: boolean;
  /** Set by the WebSocket route once Bun took the connection over. */
  upgraded: boolean;
}

export interface ServeEnv {
  Bindings: ServeBindings;
}

export type ServeApp = Hono<ServeEnv>;

export interface ServeDeps {
  opts: ServerOptions;
  hub: EventHub;
  sessions: SessionManager;
  guard: RequestGuard;
  auth: AuthConfig;
  signer: CookieSigner;
  limiter: RateLimiter;
  trust: TrustApi;
  files: WorkspaceFiles;
  commands: ReturnType<typeof commandsApi>;
  /** The provider key setup page may write keys (loopback listener, no proxy, a writer given). */
  setupAllowed: boolean;
  /** $REASONIX_HOME for the provider setup. */
  setupHome: string;
  /** End functions of the open SSE streams (closed on stop). */
  sseStreams: Set<() => void>;
  /** This machine's name, shown in the header and tab title. */
  hostname: string;
  /** First use: the engine runs but has no provider to offer. */
  noProvider(): boolean;
}
