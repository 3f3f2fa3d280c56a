import type { Server, ServerWebSocket } from "bun";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { APPROVAL_DECISIONS as DECISIONS, REWIND_MODES, type ApprovalDecision, type PermissionMode, type RewindMode } from "../protocol/modes.ts";
import { errorMessage, ReasonixError } from "../errors.ts";
import { imageFromBase64, MAX_IMAGES, type ImageInput } from "../providers/images.ts";
import { reasonixHome } from "../home.ts";
import { formatHostPort, isLoopbackHost } from "./addr.ts";
import { clearedCookie, COOKIE_NAME, CookieSigner, parseCookies, RateLimiter, safeEqual, sessionCookie, verifyPassword, type AuthConfig } from "./auth.ts";
import { EventHub, type EventSink } from "./events.ts";
import { WorkspaceFiles } from "./files.ts";
import { commandsApi } from "./commands.ts";
import { commandRoute } from "./command-route.ts";
import { isStateChanging, RequestGuard } from "./guard.ts";
import { ApiError, SessionManager, type EngineFactory } from "./sessions.ts";
import { seenDigests, trustApi } from "./trust.ts";
import { providerSetupRoute, providerSetupStatus } from "./setup-provider.ts";
import { uiAssetGzip, uiAssetPlain, uiAssets, type UiAssetKind } from "./ui/assets.ts";

export interface ServerOptions {
  host: string;
  /** 0 = any free port. */
  port: number;
  /** Try port+1, port+2, … this many times when the port is busy (reasonix web). */
  portRetries?: number;
  auth: AuthConfig;
  behindProxy?: boolean;
  /** Extra Host names accepted besides the bound address. */
  publicHosts?: string[];
  workspace: string;
  version: string;
  model?: string;
  /** `default_model` from config: what new sessions use when no model was picked. */
  defaultModel?: string;
  /** Session to load at startup. */
  resume?: string;
  engineFactory?: EngineFactory;
  /**
   * Private random key mixed into password-mode cookie signatures, so that
   * reading `password_hash` (often in a world-readable config) is not enough
   * to forge a session. Absent = a fresh one per process.
   */
  cookieSecret?: string;
  /** Writes the provider key for the setup page; absent = setup disabled. */
  saveProviderKey?: (envName: string, value: string) => void;
  /** $REASONIX_HOME, where trust approvals are recorded (default: reasonixHome()). */
  home?: string;
}

export interface RunningServer {
  host: string;
  port: number;
  /** `host:port` (IPv6 bracketed). */
  addr: string;
  /** Base URL, no credential. */
  url: string;
  hub: EventHub;
  sessions: SessionManager;
  /** Graceful stop: running turns are cancelled and their writes complete first. */
  stop(): Promise<void>;
}

const FLUSH = (fn: () => void) => setImmediate(fn);

/** The UI's script and stylesheet: embedded gzipped, sent as they are (tunnels are often slow). */
function asset(req: Request, kind: UiAssetKind): Response {
  const type = kind === "js" ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
  const headers: Record<string, string> = { "content-type": type, vary: "accept-encoding" };
  let body = uiAssetPlain;
  if (/\bgzip\b/.test(req.headers.get("accept-encoding") ?? "")) {
    body = uiAssetGzip;
    headers["content-encoding"] = "gzip";
  }
  return withHeaders(new Response(body(kind), { headers }), { "cache-control": "public, max-age=31536000, immutable" });
}
const LOGIN_LIMIT = 5;
/** Login attempts per window from all clients together (rotating addresses does not multiply guesses). */
const LOGIN_GLOBAL_LIMIT = 20;
const LOGIN_WINDOW_MS = 60_000;
const MAX_BODY = 4 * 1024 * 1024;
/** Live event streams (WebSocket + SSE) at once: plenty for tabs and tools, bounded for memory. */
const MAX_EVENT_CLIENTS = 64;
/** Variable names the setup page may write to $REASONIX_HOME/.env. */
const CREDENTIAL_NAME = /^[A-Za-z][A-Za-z0-9_]*_(?:KEY|TOKEN|SECRET)$/i;
/** Unsent bytes an event stream may pile up before the client is cut off (it reconnects and replays). */
const MAX_STREAM_BACKLOG = 8 * 1024 * 1024;

const SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function withHeaders(res: Response, extra?: Record<string, string>): Response {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) if (!res.headers.has(k)) res.headers.set(k, v);
  for (const [k, v] of Object.entries(extra ?? {})) res.headers.set(k, v);
  return res;
}

const json = (body: unknown, status = 200, headers?: Record<string, string>): Response =>
  withHeaders(Response.json(body, { status }), headers);

const problem = (status: number, code: string, message: string, headers?: Record<string, string>): Response =>
  json({ error: { code, message } }, status, headers);

/** `images: [{ mediaType, data }]` (base64) pasted in the UI: checked here, sent only to vision models by the engine. */
function pastedImages(v: unknown): ImageInput[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length > MAX_IMAGES) throw new ApiError(400, "bad_request", `"images" must be a list of at most ${MAX_IMAGES} { mediaType, data } objects`);
  return v.map((x, i) => {
    const o = x as { mediaType?: unknown; data?: unknown };
    if (typeof o?.mediaType !== "string" || typeof o?.data !== "string") throw new ApiError(400, "bad_request", `images[${i}]: needs mediaType and base64 data`);
    try {
      return imageFromBase64(o.data, o.mediaType, `images[${i}]`);
    } catch (e) {
      throw new ApiError(400, "bad_image", errorMessage(e));
    }
  });
}

async function readJson(req: Request): Promise<Record<string, unknown>> {
  const text = await req.text();
  if (text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ApiError(400, "bad_json", "request body is not valid JSON");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new ApiError(400, "bad_json", "request body must be a JSON object");
  return v as Record<string, unknown>;
}

const str = (body: Record<string, unknown>, key: string, required = true): string | undefined => {
  const v = body[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== "string" || (required && v === "")) throw new ApiError(400, "bad_request", `"${key}" must be a non-empty string`);
  return v;
};

/** A turn number from a request body (absent is fine only when `optional`). */
function turnNumber(v: unknown, optional = false): number | undefined {
  if (v === undefined && optional) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) throw new ApiError(400, "bad_request", `"turn" must be a turn number (1 or more)`);
  return v;
}

const decodablePath = (path: string): boolean => {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
};

interface WsData {
  since?: number;
  detach?: () => void;
}

/** Start listening. Resolves once the socket is bound. */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const hub = new EventHub();
  const trust = trustApi(opts.workspace, opts.home);
  const setupHome = opts.home ?? reasonixHome();
  // First use: the engine runs but has no provider to offer.
  const noProvider = () => sessions.ready && sessions.models().length === 0;
  const sessions = new SessionManager(opts.engineFactory, hub, opts.workspace, opts.model, opts.defaultModel);
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

  const isAuthed = (req: Request): boolean => {
    if (auth.mode === "none") return true;
    if (auth.mode === "token") {
      const h = req.headers.get("authorization");
      if (h && /^bearer /i.test(h) && safeEqual(h.slice(7).trim(), auth.token)) return true;
    }
    return signer.verify(parseCookies(req.headers.get("cookie")).get(COOKIE_NAME));
  };

  const grantCookie = (req: Request): Record<string, string> => {
    const c = signer.issue();
    return { "set-cookie": sessionCookie(c.value, c.maxAgeSeconds, guard.secure(req)) };
  };

  const page = (authed: boolean, status = authed ? 200 : 401): Response => {
    const html = uiAssets.html
      .replaceAll("{{DIGEST}}", uiAssets.digest)
      .replaceAll("{{AUTH_MODE}}", auth.mode)
      .replaceAll("{{AUTHED}}", String(authed));
    return withHeaders(new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": CSP } }));
  };

  const status = () => {
    const sel = sessions.selected();
    const first = noProvider();
    return {
      version: opts.version,
      host,
      workspace: sessions.engineWorkspace,
      authMode: auth.mode,
      engine: { ready: sessions.ready, error: sessions.error },
      model: sessions.selectedModel ?? sel?.name ?? null,
      setup: {
        // No provider at all (first use) opens the provider setup too (see setup-provider.ts).
        ...(first ? providerSetupStatus() : {}),
        required: first || (sessions.ready ? !!sel && !sel.hasKey : false),
        allowed: setupAllowed,
        provider: sel?.name ?? null,
        apiKeyEnv: sel?.apiKeyEnv ?? null,
      },
      lastSeq: hub.lastSeq,
    };
  };

  const sseResponse = (req: Request, server: Server<WsData>, sinceParam: string | null): Response => {
    const enc = new TextEncoder();
    const lastId = req.headers.get("last-event-id") ?? sinceParam;
    const since = lastId !== null && lastId !== "" ? Number(lastId) : undefined;
    let detach: (() => void) | undefined;
    let ping: ReturnType<typeof setInterval> | undefined;
    let ctl: ReadableStreamDefaultController<Uint8Array> | undefined;
    const end = () => {
      detach?.();
      if (ping) clearInterval(ping);
      sseStreams.delete(end);
      try { ctl?.close(); } catch {}
    };
    // A client that stops reading (a stalled tunnel, a paused tab) must not make
    // us buffer every event forever: past the cap, drop the stream and its queue.
    // The replay on attach is bounded by the hub's ring and exempt: a reconnecting
    // client must always be able to catch up.
    let replaying = true;
    const push = (controller: ReadableStreamDefaultController<Uint8Array>, text: string) => {
      controller.enqueue(enc.encode(text));
      if (!replaying && (controller.desiredSize ?? 0) < -MAX_STREAM_BACKLOG) {
        const c = ctl;
        ctl = undefined;
        end();
        c?.error(); // no reason: Bun would log one with a stack
      }
    };
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        ctl = controller;
        sseStreams.add(end);
        controller.enqueue(enc.encode(`retry: 2000\n: connected\n\n`));
        const sink: EventSink = { send: (data, seq) => push(controller, `id: ${seq}\ndata: ${data}\n\n`) };
        detach = hub.attach(sink, since);
        replaying = false;
        // Keeps proxies and tunnels from timing the stream out; never holds the process open.
        ping = setInterval(() => {
          try { push(controller, `: ping\n\n`); } catch { end(); }
        }, 15_000);
        (ping as { unref?: () => void }).unref?.();
      },
      cancel() {
        ctl = undefined;
        end();
      },
    }, new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }));
    server.timeout(req, 0);
    return withHeaders(new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8", "x-accel-buffering": "no" } }));
  };

  const tooManyClients = () =>
    problem(503, "too_many_clients", `at most ${MAX_EVENT_CLIENTS} live event streams at once; close some tabs`, { "retry-after": "5" });

  async function api(req: Request, url: URL, server: Server<WsData>): Promise<Response> {
    const path = url.pathname;
    const method = req.method.toUpperCase();
    if (path === "/api/status" && method === "GET") return json(status());
    if (path === "/api/models" && method === "GET") return json({ selected: sessions.selectedModel ?? sessions.selected()?.name ?? null, models: sessions.models() });
    if (path === "/api/model" && method === "POST") {
      sessions.setModel(str(await readJson(req), "name")!);
      return json({ selected: sessions.selectedModel });
    }
    if (path === "/api/trust" && method === "GET") return json(trust.report());
    if (path === "/api/trust" && method === "POST") {
      const report = trust.approve(seenDigests(await readJson(req)));
      // New sessions must see the approved settings: rebuild the engine.
      const ok = await sessions.build();
      return json({ ...report, engine: { ready: ok, error: sessions.error } });
    }
    if (path === "/api/events" && method === "GET") {
      if (hub.clients >= MAX_EVENT_CLIENTS) return tooManyClients();
      return sseResponse(req, server, url.searchParams.get("since"));
    }
    if (path === "/api/sessions" && method === "GET") return json({ sessions: await sessions.list() });
    if (path === "/api/files" && method === "GET") return json({ files: files.search((url.searchParams.get("q") ?? "").slice(0, 200)) });
    if (path === "/api/commands" && method === "GET") return json(commands.catalog());
    if (path === "/api/note" && method === "POST") return json(commands.note(str(await readJson(req), "text")!));
    if (path === "/api/complete" && method === "GET") return json(commands.complete((url.searchParams.get("prefix") ?? "").slice(0, 1000)));
    if (path === "/api/sessions" && method === "POST") {
      const body = await readJson(req);
      const s = await sessions.create(str(body, "model", false));
      return json({ id: s.id, workspace: s.workspace }, 201);
    }
    if ((path === "/api/setup/provider" || path === "/api/setup/provider/test") && method === "POST") {
      if (!setupAllowed) throw new ApiError(403, "setup_disabled", "provider setup is only available on a loopback listener; run `reasonix setup` on the server host instead");
      // First use only: with a provider configured, changes go through `reasonix setup` on the host.
      if (!noProvider()) throw new ApiError(409, "provider_exists", "a provider is already configured; use `reasonix setup` on the server host to add another");
      const result = await providerSetupRoute(path.endsWith("/test") ? "test" : "save", await readJson(req), setupHome);
      if (path.endsWith("/test")) return json(result);
      const ok = await sessions.build();
      return json({ ...result, engine: { ready: ok, error: sessions.error } }, ok ? 200 : 500);
    }
    if (path === "/api/setup/key" && method === "POST") {
      if (!setupAllowed || !opts.saveProviderKey) throw new ApiError(403, "setup_disabled", "provider setup is only available on a loopback listener; set the key on the server host instead");
      const body = await readJson(req);
      const key = str(body, "key")!.trim();
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
    }
    const m = /^\/api\/sessions\/([^/]+)(?:\/(history|resume|prompt|cancel|goal|steer|command|rewind|fork|title|mode|effort|model|approvals\/([^/]+)))?$/.exec(path);
    if (m) {
      let id: string;
      try {
        id = decodeURIComponent(m[1]!);
      } catch {
        throw new ApiError(400, "bad_id", "malformed session id");
      }
      // Session ids name files; never let one climb out of the sessions directory.
      if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(id)) throw new ApiError(400, "bad_id", "malformed session id");
      const action = m[2];
      if (!action && method === "DELETE") {
        await sessions.remove(id);
        return json({ deleted: id });
      }
      if (!action && method === "GET") {
        const s = (await sessions.list()).find((x) => x.id === id);
        return s ? json(s) : problem(404, "not_found", `no session "${id}"`);
      }
      // `seq`: the last envelope the snapshot includes; a client drops live events up to it.
      if (action === "history" && method === "GET") {
        const events = await sessions.history(id);
        return json({ id, busy: sessions.isBusy(id), seq: hub.lastSeq, events });
      }
      if (action === "resume" && method === "POST") {
        const s = await sessions.get(id);
        return json({ id: s.id, workspace: s.workspace, busy: s.busy, seq: hub.lastSeq, model: s.model, ...(sessions.mode(id) ? { mode: sessions.mode(id) } : {}), events: s.history() });
      }
      if (action === "command" && method === "POST") return json(await commandRoute(sessions, id, await readJson(req)));
      if (action === "goal" && method === "GET") return json(await sessions.goal(id, "status"));
      if (action === "goal" && method === "POST") {
        const body = await readJson(req);
        return json(await sessions.goal(id, str(body, "action")!, str(body, "objective", false)));
      }
      if (action === "steer" && method === "POST") {
        const body = await readJson(req);
        const text = str(body, "text")!;
        if (body.start_if_idle !== undefined && typeof body.start_if_idle !== "boolean") throw new ApiError(400, "bad_request", '"start_if_idle" must be true or false');
        return json({ disposition: await sessions.steer(id, text, body.start_if_idle === true) });
      }
      if (action === "rewind" && method === "POST") {
        const body = await readJson(req);
        const turn = turnNumber(body.turn)!;
        const mode = str(body, "mode")! as RewindMode;
        if (!REWIND_MODES.includes(mode)) throw new ApiError(400, "bad_request", `"mode" must be code, conversation or both`);
        return json(await sessions.rewind(id, turn, mode));
      }
      if (action === "fork" && method === "POST") {
        const turn = turnNumber((await readJson(req)).turn, true);
        const s = await sessions.fork(id, turn);
        return json({ id: s.id, from: id, ...(turn !== undefined ? { turn } : {}) }, 201);
      }
      if (action === "title" && method === "POST") {
        const title = (await readJson(req)).title;
        if (typeof title !== "string") throw new ApiError(400, "bad_request", `"title" must be a string ("" = the automatic title)`);
        return json({ title: await sessions.rename(id, title) });
      }
      if (action === "mode" && method === "POST") {
        const mode = str(await readJson(req), "mode")! as PermissionMode;
        await sessions.setMode(id, mode);
        return json({ mode });
      }
      if (action === "effort" && method === "POST") {
        return json({ effort: await sessions.setEffort(id, str(await readJson(req), "effort")!) });
      }
      if (action === "model" && method === "POST") {
        const name = str(await readJson(req), "name")!;
        await sessions.setSessionModel(id, name);
        return json({ model: name });
      }
      if (action === "prompt" && method === "POST") {
        const body = await readJson(req);
        const prompt = str(body, "prompt")!;
        await sessions.submit(id, prompt, pastedImages(body.images));
        return json({ accepted: true, id }, 202);
      }
      if (action === "cancel" && method === "POST") return json({ cancelled: sessions.cancel(id) });
      if (action?.startsWith("approvals/") && method === "POST") {
        const decision = str(await readJson(req), "decision")! as ApprovalDecision;
        if (!DECISIONS.includes(decision)) throw new ApiError(400, "bad_decision", `decision must be one of ${DECISIONS.join(", ")}`);
        sessions.approve(id, decodeURIComponent(m[3]!), decision);
        return json({ ok: true });
      }
    }
    return problem(404, "not_found", `no route ${method} ${path}`);
  }

  async function handle(req: Request, server: Server<WsData>): Promise<Response | undefined> {
    // Bun builds req.url from the Host header; no or a malformed Host makes it unparsable.
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return problem(421, "misdirected", "this server does not answer to that Host name");
    }
    const path = url.pathname;
    const method = req.method.toUpperCase();

    // Health check first and unconditionally: the remote supervisor probes the tunnel with it.
    if (path === "/healthz" && (method === "GET" || method === "HEAD")) return json({ ok: true, version: opts.version });

    const hostBad = guard.hostStatus(req);
    if (hostBad) return problem(421, "misdirected", "this server does not answer to that Host name");
    // Checked once for every route, so no handler can trip over a bad escape (and answer 500).
    if (!decodablePath(path)) return problem(400, "bad_path", "malformed %-escape in the URL path");
    if (isStateChanging(method)) {
      if (guard.originStatus(req)) return problem(403, "cross_origin", "cross-origin requests are refused");
      if (guard.contentTypeStatus(req)) return problem(415, "json_required", "state-changing requests must send Content-Type: application/json");
    }

    if (path === "/auth/token" && method === "POST") {
      if (auth.mode !== "token") return problem(404, "not_found", "token login is not enabled");
      const token = (await readJson(req)).token;
      if (typeof token !== "string" || !safeEqual(token, auth.token)) return problem(401, "bad_token", "invalid token");
      return withHeaders(new Response(null, { status: 204 }), grantCookie(req));
    }
    if (path === "/login" && method === "POST") {
      if (auth.mode !== "password") return problem(404, "not_found", "password login is not enabled");
      const wait = limiter.take(guard.clientId(req, server.requestIP(req)?.address));
      if (wait) return problem(429, "rate_limited", `too many login attempts; try again in ${wait}s`, { "retry-after": String(wait) });
      const pw = (await readJson(req)).password;
      if (typeof pw !== "string" || !(await verifyPassword(pw, auth.passwordHash))) return problem(401, "bad_password", "wrong password");
      return withHeaders(new Response(null, { status: 204 }), grantCookie(req));
    }
    if (path === "/auth/logout" && method === "POST") return withHeaders(new Response(null, { status: 204 }), { "set-cookie": clearedCookie(guard.secure(req)) });

    if ((path === "/assets/app.js" || path === "/assets/app.css") && method === "GET") return asset(req, path.endsWith(".js") ? "js" : "css");
    if (path === "/favicon.ico") return withHeaders(new Response(null, { status: 204 }));

    const authed = isAuthed(req);
    const isApi = path.startsWith("/api/");
    if (isApi && !authed) return problem(401, "unauthorized", "authentication required");

    if (path === "/api/ws" && method === "GET") {
      if (guard.originStatus(req)) return problem(403, "cross_origin", "cross-origin WebSocket refused");
      if (hub.clients >= MAX_EVENT_CLIENTS) return tooManyClients();
      const since = url.searchParams.get("since");
      if (server.upgrade(req, { data: { since: since ? Number(since) : undefined } })) return undefined;
      return problem(426, "upgrade_required", "expected a WebSocket upgrade");
    }
    if (isApi) return api(req, url, server);

    if (method === "GET" || method === "HEAD") {
      if (path === "/" || path === "/login" || path === "/setup" || /^\/sessions\/[^/]+$/.test(path)) return page(authed);
    }
    return problem(404, "not_found", `no route ${method} ${path}`);
  }

  const fetch = async (req: Request, server: Server<WsData>): Promise<Response | undefined> => {
    try {
      return await handle(req, server);
    } catch (e) {
      if (e instanceof ApiError) return problem(e.status, e.code, e.message);
      if (e instanceof ReasonixError) return problem(400, e.code, e.message);
      return problem(500, "internal", errorMessage(e));
    }
  };

  const websocket = {
    // Same rule as the SSE backlog: a client that stops reading is closed, not
    // silently skipped (Bun's default drops frames past its limit and keeps the
    // socket open, so the page would miss events without knowing). On close the
    // page reconnects with ?since= and gets the gap replayed.
    backpressureLimit: MAX_STREAM_BACKLOG,
    closeOnBackpressureLimit: true,
    // The socket is one-way; nothing a client sends needs more than this.
    maxPayloadLength: 64 * 1024,
    open(ws: ServerWebSocket<WsData>) {
      // Envelopes emitted in one burst (a provider chunk carrying many deltas)
      // go out as one frame holding a JSON array: far less per-message work in
      // the browser, and no added delay for a lone event.
      let queue: string[] = [];
      const flush = () => {
        const batch = queue;
        queue = [];
        if (batch.length) ws.send(batch.length === 1 ? batch[0]! : `[${batch.join(",")}]`);
      };
      ws.data.detach = hub.attach({
        send: (data) => {
          if (queue.push(data) === 1) FLUSH(flush);
        },
      }, ws.data.since);
    },
    message() {
      // Commands travel over HTTP; the socket is a one-way event stream.
    },
    close(ws: ServerWebSocket<WsData>) {
      ws.data.detach?.();
    },
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
        websocket,
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
