import { expect, test } from "bun:test";
import { guardBatches } from "../batch-guard.ts";

async function through(chunks: string[]): Promise<string> {
  const enc = new TextEncoder();
  const src = new ReadableStream<Uint8Array>({
    start(c) {
      for (const s of chunks) c.enqueue(enc.encode(s));
      c.close();
    },
  });
  return new Response(guardBatches(src)).text();
}

const R = '"JSON-RPC batches are not supported by ACP"\n';

test("batch lines become a JSON string; everything else passes byte for byte, across chunk borders", async () => {
  expect(await through(['{"a":1}\n', "[1,2]\n", '  {"b":[3]}\n'])).toBe(`{"a":1}\n${R}  {"b":[3]}\n`);
  expect(await through(['{"a":', "1}\n  [", '{"x":1}', "]\n{}"])).toBe(`{"a":1}\n  ${R}{}`);
  expect(await through(["[", "]"])).toBe(R);
  expect(await through(["\n\n[]\n"])).toBe(`\n\n${R}`);
});
