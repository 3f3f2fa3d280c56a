import type { Server } from "bun";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { errorMessage, ReasonixError } from "../errors.ts";
import { reasonixHome } from "../home.ts";
import { formatHostPort, isLoopbackHost } from "./addr.ts";
import { CookieSigner, RateLimiter } from "./auth.ts";
import { commandsApi } from "./commands.ts";
import { EventHub } from "./events.ts";
import { WorkspaceFiles } from "./files.ts";
import { RequestGuard } from "./guard.ts";
import type { RunningServer, ServerOptions } from "./options.ts";
import { serveApp } from "./routes/app.ts";
import type { ServeBindings, ServeDeps, WsData } from "./routes/context.ts";
import { eventSocket } from "./routes/events.ts";
import { MAX_PROMPT_BODY } from "./routes/body.ts";
import { errorResponse, problem } from "./routes/respond.ts";
import { SessionManager } from "./sessions.ts";
import { trustApi } from "./trust.ts";

export type { RunningServer, ServerOptions } from "./options.ts";

const LOGIN_LIMIT = 5;
/** Login attempts per window from all clients together (rotating addresses does not multiply guesses). */
const LOGIN_GLOBAL_LIMIT = 20;
const LOGIN_WINDOW_MS = 60_000;
/**
 * Bun's own cap, past which it answers 413 with no explanation. Each route
 * refuses a larger body than its own limit with a sentence saying why (the
 * declared length before reading a byte, else as it streams in: routes/body.ts).
 */
const MAX_BODY = 2 * MAX_PROMPT_BODY;

/** Start listening. Resolves once the socket is bound. */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const hub = new EventHub();
  const trust = trustApi(opts.workspace, opts.home);
  const setupHome = opts.home ?? reasonixHome();
  // First use: the engine runs but has no provider to offer.
  const noProvider = () => sessions.ready && sessions.models().length === 0;
  const sessions = new SessionManager(opts.engineFactory, hub, opts.workspace, opts.model, opts.defaultModel);
  sessions.configHome = setupHome;
  const behindProxy = opts.behindProxy ?? false;
  const guard = new RequestGuard(opts.host, opts.publicHosts ?? [], behindProxy);
  const auth = opts.auth;
  // The token is itself secret; a password hash is only a verifier, so password
  // cookies also need a key nobody else can read.
  const signer = new CookieSigner(
    auth.mode === "token" ? `token\0${auth.token}`
    : auth.mode === "password" ? `password\0${auth.passwordHash}\0${opts.cookieSecret ?? randomBytes(32).toString("base64url")}`
    : "none",
  );
  const limiter = new RateLimiter(LOGIN_LIMIT, LOGIN_WINDOW_MS, LOGIN_GLOBAL_LIMIT);
  // The key-writing endpoint is only for a browser on this machine (or at the end of an SSH tunnel).
  const setupAllowed = isLoopbackHost(opts.host) && !behindProxy && !!opts.saveProviderKey;
  const sseStreams = new Set<() => void>();
  const files = new WorkspaceFiles(() => sessions.engineWorkspace);
  const commands = commandsApi(() => sessions.engineWorkspace, opts.home, () => sessions.commandSources());
  /** Shown in the header and tab title: several remote tabs are common. */
  const host = hostname();

  const deps: ServeDeps = {
    opts, hub, sessions, guard, auth, signer, limiter, trust, files, commands, setupAllowed, setupHome, sseStreams,
    hostname: host,
    noProvider,
  };
  const app = serveApp(deps);

  const fetch = async (req: Request, server: Server<WsData>): Promise<Response | undefined> => {
    try {
      // Bun builds req.url from the Host header; no or a malformed Host makes it unparsable.
      let url: URL;
      try {
        url = new URL(req.url);
      } catch {
        return problem(421, "misdirected", "this server does not answer to that Host name");
      }
      // HEAD goes through the GET routes as a GET (Bun sends only the headers),
      // so a page answers HEAD with the same headers as GET.
      const head = req.method.toUpperCase() === "HEAD";
      const env: ServeBindings = { server, url, head, upgraded: false };
      const res = await app.fetch(head ? new Request(req, { method: "GET" }) : req, env);
      return env.upgraded ? undefined : res;
    } catch (e) {
      return errorResponse(e);
    }
  };

  let server: Server<WsData> | undefined;
  const tries = opts.port === 0 ? 1 : 1 + Math.max(0, opts.portRetries ?? 0);
  let lastErr: unknown;
  for (let i = 0; i < tries && opts.port + i <= 65535; i++) {
    try {
      server = Bun.serve<WsData>({
        hostname: opts.host,
        port: opts.port + i,
        maxRequestBodySize: MAX_BODY,
        idleTimeout: 120,
        fetch: fetch as never,
        websocket: eventSocket(hub),
      });
      break;
    } catch (e) {
      lastErr = e;
      if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") break;
    }
  }
  if (!server) {
    const code = (lastErr as NodeJS.ErrnoException | undefined)?.code;
    const where = tries > 1 ? `${formatHostPort(opts.host, opts.port)}..${opts.port + tries - 1}` : formatHostPort(opts.host, opts.port);
    throw new ReasonixError(code === "EADDRINUSE" ? "addr_in_use" : "listen_failed", `cannot listen on ${where}: ${code === "EADDRINUSE" ? "address already in use" : errorMessage(lastErr)}`, {
      hint: code === "EADDRINUSE" ? "pick another port with --addr HOST:PORT (port 0 = any free port)" : undefined,
    });
  }

  const port = server.port!;
  const addr = formatHostPort(opts.host, port);
  const urlHost = opts.host === "0.0.0.0" ? "127.0.0.1" : opts.host === "::" ? "[::1]" : formatHostPort(opts.host, port).replace(/:\d+$/, "");
  const running: RunningServer = {
    host: opts.host,
    port,
    addr,
    url: `http://${urlHost}:${port}/`,
    hub,
    sessions,
    stop: async () => {
      server!.stop(false);
      await sessions.shutdown();
      for (const end of [...sseStreams]) end();
      server!.stop(true);
    },
  };

  // Build the engine after binding so the port is known quickly; a missing key is not fatal.
  await sessions.build();
  if (opts.resume && sessions.ready) {
    try {
      await sessions.get(opts.resume);
    } catch (e) {
      await running.stop();
      throw new ReasonixError("resume_failed", `cannot resume session "${opts.resume}": ${errorMessage(e)}`);
    }
  }
  return running;
}
