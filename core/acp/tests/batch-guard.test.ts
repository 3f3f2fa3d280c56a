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

/** What the guard must produce: each line whose first non-blank byte is `[` becomes its leading blanks and R. */
function expected(input: string): string {
  const lines = input.split("\n");
  return lines
    .map((line, i) => {
      const lead = /^[ \t\r]*/.exec(line)![0];
      if (line.slice(lead.length).startsWith("[")) return lead + R;
      return line + (i === lines.length - 1 ? "" : "\n");
    })
    .join("");
}

test("random frames split at random places: the same as line by line", async () => {
  const pool = ['{"a":1}', "[1,2]", "  [x]", '\t{"b":[3]}', "", "   ", '{"t":"[not a batch]"}', "\r[]", `{"big":"${"y".repeat(3000)}"}`];
  let seed = 42;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let round = 0; round < 200; round++) {
    const input = Array.from({ length: 1 + rnd(8) }, () => pool[rnd(pool.length)]!).join("\n") + (rnd(2) ? "\n" : "");
    const chunks: string[] = [];
    for (let at = 0; at < input.length; ) {
      const len = 1 + rnd(Math.min(64, input.length - at) + (rnd(4) === 0 ? 4000 : 0));
      chunks.push(input.slice(at, at + len));
      at += len;
    }
    expect({ round, out: await through(chunks) }).toEqual({ round, out: expected(input) });
  }
});
