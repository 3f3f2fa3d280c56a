/**
 * ACP forbids JSON-RPC batches, and the SDK's connection closes itself when a
 * line holding a JSON array arrives. A client must not be able to stop the
 * agent with one bad frame, so such lines are swapped, on the byte stream,
 * for a JSON string: the SDK answers that with -32600 (id null) and goes on.
 * Streaming, no buffering: only each line's first non-blank byte is looked
 * at, and the rest of the line is skipped with indexOf (a byte-by-byte loop
 * cost a 2 MB prompt ~55 ms before it even reached the JSON parser).
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
        let i = 0;
        while (i < chunk.length) {
          if (state === "start") {
            const b = chunk[i]!;
            if (b === NL || isBlank(b)) {
              i++;
              continue;
            }
            if (b === OPEN_BRACKET) {
              if (i > from) ctl.enqueue(chunk.subarray(from, i));
              state = "drop";
            } else state = "pass";
          }
          // The rest of the line is copied or dropped whole: jump to its end.
          const nl = chunk.indexOf(NL, i);
          if (nl < 0) {
            if (state === "drop") from = chunk.length;
            break;
          }
          if (state === "drop") {
            ctl.enqueue(REPLACEMENT);
            from = nl + 1;
          }
          state = "start";
          i = nl + 1;
        }
        if (from < chunk.length && state !== "drop") ctl.enqueue(chunk.subarray(from));
      },
      flush(ctl) {
        if (state === "drop") ctl.enqueue(REPLACEMENT);
      },
    }),
  );
}
