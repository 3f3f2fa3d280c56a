// Where the grammars come from. Running from source: the installed package's
// .wasm files. In the compiled binary the build replaces this module (see
// grammarPackPlugin in scripts/build.ts) with one that reads the grammar pack
// embedded in the executable, so the binary never looks for node_modules.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GRAMMAR_FILES, wasmDir } from "./pack.ts";

/** The .wasm bytes of a runtime or grammar file by stem (e.g. "tree-sitter-rust"), or null when not carried. */
export function grammarBytes(name: string): Uint8Array | null {
  if (!(GRAMMAR_FILES as readonly string[]).includes(name)) return null;
  return readFileSync(join(wasmDir(), `${name}.wasm`));
}
