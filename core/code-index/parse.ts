/** One file's declarations: parse with the language's grammar, extract, free the tree. Used in-process and by worker.ts. */
import { extractSymbols, type CodeSymbol } from "./extract.ts";
import { parserFor, type LangId } from "./grammars.ts";

export async function parseSymbols(source: string, lang: LangId): Promise<CodeSymbol[]> {
  const parser = await parserFor(lang); // one parser per language per thread, reused
  const tree = parser.parse(source);
  if (!tree) return [];
  try {
    return extractSymbols(tree.rootNode, lang);
  } finally {
    tree.delete(); // trees live in WebAssembly memory: free them or the heap only grows
  }
}
