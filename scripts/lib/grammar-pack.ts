// Build support: the grammar pack code_index needs, embedded in the compiled
// binary. The plugin swaps core/code-index/assets.ts (which reads the .wasm
// files from node_modules when running from source) for a module that reads
// the pack embedded as a file, so the binary carries each grammar once,
// zstd-compressed, and never looks for node_modules.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeGrammarPack } from "../../core/code-index/pack.ts";
import { removeWhenDone } from "./temp-dirs.ts";

let pack: string | undefined;

/** The pack file, written once per build process. */
export function grammarPack(): string {
  if (!pack) {
    const dir = mkdtempSync(join(tmpdir(), "rx-grammar-pack-"));
    removeWhenDone(dir);
    pack = join(dir, "grammars.pack");
    writeGrammarPack(pack);
  }
  return pack;
}

export const ASSETS_MODULE = /core[\\/]code-index[\\/]assets\.ts$/;

/**
 * code_index's parsing worker, an extra entrypoint of the compiled build (a
 * standalone executable only carries the workers listed as entrypoints) and
 * started by this path, which Bun resolves to the embedded module.
 */
export const CODE_INDEX_WORKER = "core/code-index/worker.ts";

/** EMBED false: a build without the grammars (scripts/bench/tools.ts weighs them that way). */
export function grammarPackPlugin(embed = true): Bun.BunPlugin {
  return {
    name: "reasonix-grammar-pack",
    setup(b) {
      b.onLoad({ filter: ASSETS_MODULE }, () => ({
        loader: "ts",
        contents: embed
          ? [
              `import packPath from ${JSON.stringify(grammarPack())} with { type: "file" };`,
              `import { readFileSync } from "node:fs";`,
              `import { readGrammarPack } from "./pack.ts";`,
              `let read;`,
              `export function grammarBytes(name) { read ??= readGrammarPack(readFileSync(packPath)); return read(name); }`,
              `export function workerUrl() { return ${JSON.stringify(`./${CODE_INDEX_WORKER}`)}; }`,
            ].join("\n")
          : "export function grammarBytes() { return null; }\nexport function workerUrl() { return null; }",
      }));
    },
  };
}
