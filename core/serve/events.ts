import type { EngineEvent } from "../engine/types.ts";
import type { QueueView } from "../protocol/queue.ts";

/**
 * One message on the live stream. `event` is the engine's own event, verbatim;
 * `server` carries the server's notices (engine rebuilt, session list changed).
 */
export type Envelope =
  | { seq: number; sessionId: string; event: EngineEvent }
  | { seq: number; server: ServerNotice };

export type ServerNotice =
  | { type: "sessions_changed" }
  | { type: "engine_ready"; model?: string }
  | { type: "engine_error"; message: string }
  | { type: "busy"; sessionId: string; busy: boolean }
  /** A session's queue of follow-up prompts changed (core/host/queue.ts). */
  | { type: "queue"; sessionId: string; queue: QueueView };

export interface EventSink {
  send(json: string, seq: number): void;
}

/**
 * Fans envelopes out to every connected WebSocket and SSE client and keeps a
 * short replay buffer so a client that reconnects (a dropped SSH tunnel, a
 * reloaded tab) can ask for everything after the last `seq` it saw.
 */
export class EventHub {
  private seq = 0;
  private readonly ring: { seq: number; json: string }[] = [];
  private readonly sinks = new Set<EventSink>();

  constructor(private readonly replayLimit = 2000) {}

  emit(sessionId: string, event: EngineEvent): void {
    this.push({ seq: ++this.seq, sessionId, event });
  }

  notice(server: ServerNotice): void {
    this.push({ seq: ++this.seq, server });
  }

  private push(env: Envelope): void {
    const json = JSON.stringify(env);
    this.ring.push({ seq: env.seq, json });
    if (this.ring.length > this.replayLimit) this.ring.splice(0, this.ring.length - this.replayLimit);
    for (const s of this.sinks) {
      try { s.send(json, env.seq); } catch {
        this.sinks.delete(s);
      }
    }
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Attach a client; envelopes after `since` are replayed first (when still buffered). */
  attach(sink: EventSink, since?: number): () => void {
    if (since !== undefined && Number.isFinite(since)) {
      for (const e of this.ring) if (e.seq > since) sink.send(e.json, e.seq);
    }
    this.sinks.add(sink);
    return () => void this.sinks.delete(sink);
  }

  get clients(): number {
    return this.sinks.size;
  }
}
