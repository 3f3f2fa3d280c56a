/**
 * ACP forbids JSON-RPC batches, and the SDK's connection closes itself when a
 * line holding a JSON array arrives. A client must not be able to stop the
 * agent with one bad frame, so such lines are swapped, on the byte stream,
 * for a JSON string: the SDK answers that with -32600 (id null) and goes on.
 * Streaming, no buffering: only each line's first non-blank byte is looked at.
 */
const NL = 0x0a;
const OPEN_BRACKET = 0x5b;
const isBlank = (b: number) => b === 0x20 || b === 0x09 || b === 0x0d;
const REPLACEMENT = new TextEncoder().encode('"JSON-RPC batches are not supported by ACP"\n');

export function guardBatches(input: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  /** "start": before the line's first non-blank byte; "pass": copying; "drop": inside a batch line. */
  let state: "start" | "pass" | "drop" = "start";
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        let from = 0;
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i]!;
          if (state === "start" && !isBlank(b) && b !== NL) {
            if (b === OPEN_BRACKET) {
              if (i > from) ctl.enqueue(chunk.subarray(from, i));
              state = "drop";
            } else state = "pass";
          }
          if (b === NL) {
            if (state === "drop") {
              ctl.enqueue(REPLACEMENT);
              from = i + 1;
            }
            state = "start";
          } else if (state === "drop") from = i + 1;
        }
        if (from < chunk.length && state !== "drop") ctl.enqueue(chunk.subarray(from));
      },
      flush(ctl) {
        if (state === "drop") ctl.enqueue(REPLACEMENT);
      },
    }),
  );
}
