// Live events: the WebSocket (GET /api/ws) and Server-Sent Events
// (GET /api/events) streams, both capped in number and in unsent backlog.
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import type { EventHub, EventSink } from "../events.ts";
import type { ServeApp, ServeDeps, WsData } from "./context.ts";
import { problem, withHeaders } from "./respond.ts";

/** Live event streams (WebSocket + SSE) at once: plenty for tabs and tools, bounded for memory. */
const MAX_EVENT_CLIENTS = 64;
/** Unsent bytes an event stream may pile up before the client is cut off (it reconnects and replays). */
const MAX_STREAM_BACKLOG = 8 * 1024 * 1024;

const FLUSH = (fn: () => void) => setImmediate(fn);

const tooManyClients = () =>
  problem(503, "too_many_clients", `at most ${MAX_EVENT_CLIENTS} live event streams at once; close some tabs`, { "retry-after": "5" });

function sseResponse(req: Request, server: Server<WsData>, sinceParam: string | null, { hub, sseStreams }: ServeDeps): Response {
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
}

export function eventRoutes(app: ServeApp, deps: ServeDeps): void {
  const { guard, hub } = deps;
  /** A one-way WebSocket of event envelopes (`?since=` replays from a sequence number). */
  app.get("/api/ws", (c) => {
    const req = c.req.raw;
    if (guard.originStatus(req)) return problem(403, "cross_origin", "cross-origin WebSocket refused");
    if (hub.clients >= MAX_EVENT_CLIENTS) return tooManyClients();
    const since = c.env.url.searchParams.get("since");
    if (c.env.server.upgrade(req, { data: { since: since ? Number(since) : undefined } })) {
      // Bun owns the connection now; the server's fetch answers nothing more.
      c.env.upgraded = true;
      return new Response(null);
    }
    return problem(426, "upgrade_required", "expected a WebSocket upgrade");
  });
  /** The same envelopes as Server-Sent Events (`Last-Event-ID` or `?since=` resumes). */
  app.get("/api/events", (c) => {
    if (hub.clients >= MAX_EVENT_CLIENTS) return tooManyClients();
    return sseResponse(c.req.raw, c.env.server, c.env.url.searchParams.get("since"), deps);
  });
}

/** Bun's handlers for the sockets `socketRoute` upgrades. */
export function eventSocket(hub: EventHub): WebSocketHandler<WsData> {
  return {
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
}
