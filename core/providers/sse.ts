/**
 * A minimal Server-Sent Events reader (https://html.spec.whatwg.org/#server-sent-events).
 *
 * `SseParser` is the push form: text in, one callback per complete event,
 * no promise or object per event (a 20,000-token answer is 20,000 events;
 * issue 35). `readSse` is the pull form over a byte stream.
 */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Splits text into events. Lines end with CRLF, LF or CR; an event ends at a
 * blank line; comments and fields other than `event` and `data` are skipped;
 * an event without a data line is not dispatched.
 */
export class SseParser {
  private buf = "";
  private event = "";
  private data: string | undefined;

  /** `onEvent` returns true to stop: the rest of the text is not parsed. */
  constructor(private readonly onEvent: (event: string, data: string) => boolean | void) {}

  /** Parses `text`; false once onEvent asked to stop. */
  push(text: string): boolean {
    const buf = this.buf ? this.buf + text : text;
    const cr = buf.includes("\r");
    let pos = 0;
    for (;;) {
      let end = buf.indexOf("\n", pos);
      let next = end + 1;
      if (cr) {
        const r = buf.indexOf("\r", pos);
        if (r >= 0 && (end < 0 || r < end)) {
          // A lone trailing CR may be the first half of CRLF: wait for more text.
          if (r === buf.length - 1) break;
          end = r;
          next = buf.charCodeAt(r + 1) === 10 ? r + 2 : r + 1;
        }
      }
      if (end < 0) break;
      // The common line first, "data: {…}": one substring, not two.
      const stop = end - pos > 6 && buf.startsWith("data: ", pos) ? this.addData(buf.slice(pos + 6, end)) : this.line(buf.slice(pos, end));
      pos = next;
      if (stop) {
        this.buf = "";
        return false;
      }
    }
    this.buf = pos === 0 ? buf : buf.slice(pos);
    return true;
  }

  /** End of input: a last event the server did not end with a blank line still counts. */
  end(): void {
    const rest = this.buf;
    this.buf = "";
    if (rest && this.line(rest.endsWith("\r") ? rest.slice(0, -1) : rest)) return;
    this.line("");
  }

  /** One line; true when onEvent asked to stop. */
  private line(line: string): boolean {
    if (line.length === 0) {
      const data = this.data;
      const event = this.event || "message";
      this.event = "";
      this.data = undefined;
      return data !== undefined && this.onEvent(event, data) === true;
    }
    if (line.charCodeAt(0) === 58 /* ":" */) return false;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") return this.addData(value);
    return false;
  }

  private addData(value: string): false {
    this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    return false;
  }
}

/** What reads a body tells its attempt's StreamWatch (stream-watch.ts): the reader (a stall cancels it), each chunk, the end. */
export interface ChunkWatch {
  track(reader: ReadableStreamDefaultReader<Uint8Array>): void;
  byte(): void;
  stop(): void;
}

/**
 * Feeds a byte stream to `parser` until the stream ends (then `parser.end()`)
 * or the parser is told to stop (then the body is cancelled). Returns whether
 * it was stopped.
 */
export async function pumpSse(body: ReadableStream<Uint8Array>, parser: SseParser, watch?: ChunkWatch): Promise<boolean> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  watch?.track(reader);
  let stopped = false;
  let ended = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        const tail = decoder.decode();
        if (!tail || parser.push(tail)) parser.end();
        break;
      }
      watch?.byte();
      if (!parser.push(decoder.decode(value, { stream: true }))) {
        stopped = true;
        break;
      }
    }
  } finally {
    watch?.stop();
    reader.releaseLock();
    // Stopped (the answer is complete) or failed (a bad event): do not wait for the server to close.
    if (!ended) body.cancel().catch(() => {});
  }
  return stopped;
}

/**
 * Yield events from a byte stream. Returns normally at end of stream; the
 * caller decides whether the stream ended too early.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, watch?: ChunkWatch): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let ready: SseEvent[] = [];
  const parser = new SseParser((event, data) => void ready.push({ event, data }));
  const reader = body.getReader();
  watch?.track(reader);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        watch?.stop();
        break;
      }
      watch?.byte();
      parser.push(decoder.decode(value, { stream: true }));
      const batch = ready;
      ready = [];
      yield* batch;
    }
  } finally {
    reader.releaseLock();
  }
}
