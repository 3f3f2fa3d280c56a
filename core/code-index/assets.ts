// Where the grammars and the parsing worker come from. Running from source:
// the installed package's .wasm files and worker.ts beside this file. In the
// compiled binary the build replaces this module (see grammarPackPlugin in
// scripts/lib/grammar-pack.ts) with one that reads the grammar pack embedded
// in the executable and names the worker by its build entrypoint, so the
// binary never looks for node_modules or source files.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GRAMMAR_FILES, wasmDir } from "./pack.ts";

/** The .wasm bytes of a runtime or grammar file by stem (e.g. "tree-sitter-rust"), or null when not carried. */
export function grammarBytes(name: string): Uint8Array | null {
  if (!(GRAMMAR_FILES as readonly string[]).includes(name)) return null;
  return readFileSync(join(wasmDir(), `${name}.wasm`));
}

/** The module to start a parsing worker from (pool.ts), or null when this build has none. */
export function workerUrl(): string | null {
  return new URL("./worker.ts", import.meta.url).href;
}
