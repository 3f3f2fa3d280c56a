// The live event stream: WebSocket, or SSE when WebSocket is unavailable.
// Reconnects replay from the last seq seen.
export interface Envelope {
  seq: number;
  sessionId?: string;
  event?: Record<string, any>;
  server?: Record<string, any>;
}

export type Transport = "offline" | "websocket" | "sse";

export interface LiveOptions {
  since: () => number;
  onEnvelope: (e: Envelope) => void;
  onTransport: (t: Transport) => void;
}

export function connectLive(o: LiveOptions): void {
  let retryMs = 500;
  const sse = () => {
    const es = new EventSource(`/api/events?since=${o.since()}`);
    es.onopen = () => o.onTransport("sse");
    es.onmessage = (m) => o.onEnvelope(JSON.parse(m.data) as Envelope);
    es.onerror = () => o.onTransport("offline");
  };
  const ws = () => {
    if (typeof WebSocket === "undefined") return sse();
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    let opened = false;
    const sock = new WebSocket(`${proto}//${location.host}/api/ws?since=${o.since()}`);
    sock.onopen = () => {
      opened = true;
      retryMs = 500;
      o.onTransport("websocket");
    };
    sock.onmessage = (m) => {
      // One envelope, or a burst of them as an array.
      const data = JSON.parse(String(m.data)) as Envelope | Envelope[];
      if (Array.isArray(data)) data.forEach(o.onEnvelope);
      else o.onEnvelope(data);
    };
    sock.onclose = () => {
      o.onTransport("offline");
      // Never opened: a proxy that cannot do WebSocket. Fall back to SSE for good.
      if (!opened) return sse();
      setTimeout(ws, retryMs);
      retryMs = Math.min(retryMs * 2, 10_000);
    };
  };
  ws();
}
