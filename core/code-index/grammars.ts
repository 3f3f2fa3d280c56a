/**
 * tree-sitter's WebAssembly runtime and the grammars code_index parses with,
 * loaded once per process (assets.ts: from the package when running from
 * source, from the pack embedded in the compiled binary otherwise). Each
 * grammar is loaded and compiled on first use.
 */
import type { Language, Parser } from "@vscode/tree-sitter-wasm";

export type LangId = "typescript" | "tsx" | "python" | "go" | "rust";

const EXT: Record<string, LangId> = {
  ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
  ".tsx": "tsx",
  // The TSX grammar is a superset of JavaScript with JSX: one grammar less to carry.
  ".js": "tsx", ".jsx": "tsx", ".mjs": "tsx", ".cjs": "tsx",
  ".py": "python", ".pyi": "python",
  ".go": "go",
  ".rs": "rust",
};

/** The grammar for a file name, or null when code_index does not read that language. */
export function langFor(path: string): LangId | null {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return null;
  return EXT[path.slice(dot).toLowerCase()] ?? null;
}

interface Runtime {
  ParserClass: typeof Parser;
  LanguageClass: typeof Language;
  unpack(name: string): Uint8Array;
}

let runtime: Promise<Runtime> | undefined;
const parsers = new Map<LangId, Promise<Parser>>();

function loadRuntime(): Promise<Runtime> {
  runtime ??= (async () => {
    const [{ grammarBytes }, ts] = await Promise.all([import("./assets.ts"), import("@vscode/tree-sitter-wasm")]);
    const unpack = (name: string): Uint8Array => {
      let bytes: Uint8Array | null;
      try {
        bytes = grammarBytes(name);
      } catch (e) {
        // From source: the package is missing (npm ci). A binary built without scripts/build.ts has no pack.
        throw new Error(`code_index: cannot load ${name}.wasm (${(e as Error).message}); run npm ci, or build with npm run build`);
      }
      if (!bytes) throw new Error(`code_index: grammar ${name} is not part of this build`);
      return bytes;
    };
    const mod = ((ts as { default?: unknown }).default ?? ts) as { Parser: typeof Parser; Language: typeof Language };
    // wasmBinary: the runtime never looks for tree-sitter.wasm on disk; locateFile keeps it off URL guessing.
    await mod.Parser.init({ wasmBinary: unpack("tree-sitter"), locateFile: (f: string) => f } as Parameters<typeof Parser.init>[0]);
    return { ParserClass: mod.Parser, LanguageClass: mod.Language, unpack };
  })();
  runtime.catch(() => (runtime = undefined));
  return runtime;
}

/** A parser for LANG (one per language per process; parsing is synchronous, so sharing is safe). */
export function parserFor(lang: LangId): Promise<Parser> {
  let p = parsers.get(lang);
  if (!p) {
    p = (async () => {
      const rt = await loadRuntime();
      const language = await rt.LanguageClass.load(rt.unpack(`tree-sitter-${lang}`));
      const parser = new rt.ParserClass();
      parser.setLanguage(language);
      return parser;
    })();
    p.catch(() => parsers.delete(lang));
    parsers.set(lang, p);
  }
  return p;
}
