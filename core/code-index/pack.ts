/**
 * The grammar pack: tree-sitter's runtime and the grammars code_index uses,
 * each zstd-compressed, in one file the compiled binary carries as an
 * embedded file (about a tenth of the raw .wasm size, stored once).
 *
 * Layout: a 4-byte little-endian header length, a JSON header
 * `{ name: [offset, length] }` (offsets after the header), then the blobs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Files taken from @vscode/tree-sitter-wasm's wasm/ folder (tree-sitter-javascript is left out: tsx parses JavaScript and JSX). */
export const GRAMMAR_FILES = ["tree-sitter", "tree-sitter-typescript", "tree-sitter-tsx", "tree-sitter-python", "tree-sitter-go", "tree-sitter-rust"] as const;

/** The installed package's wasm/ folder (source runs and builds; the compiled binary never looks). */
export const wasmDir = (): string => dirname(fileURLToPath(import.meta.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter.js")));

/** Write the pack to OUT; returns the raw and packed byte counts. */
export function writeGrammarPack(out: string): { rawBytes: number; packedBytes: number } {
  const header: Record<string, [number, number]> = {};
  const blobs: Uint8Array[] = [];
  let offset = 0;
  let rawBytes = 0;
  for (const name of GRAMMAR_FILES) {
    const raw = readFileSync(join(wasmDir(), `${name}.wasm`));
    const packed = Bun.zstdCompressSync(raw, { level: 19 });
    rawBytes += raw.length;
    header[name] = [offset, packed.length];
    blobs.push(packed);
    offset += packed.length;
  }
  const head = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(head.length);
  const file = Buffer.concat([len, head, ...blobs]);
  writeFileSync(out, file);
  return { rawBytes, packedBytes: file.length };
}

/** A reader over a pack's bytes: name → the decompressed .wasm. */
export function readGrammarPack(bytes: Uint8Array): (name: string) => Uint8Array | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headLen = buf.readUInt32LE(0);
  const header = JSON.parse(buf.subarray(4, 4 + headLen).toString("utf8")) as Record<string, [number, number]>;
  const base = 4 + headLen;
  return (name) => {
    const at = header[name];
    return at ? Bun.zstdDecompressSync(buf.subarray(base + at[0], base + at[0] + at[1])) : null;
  };
}
