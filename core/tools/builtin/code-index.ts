/**
 * code_index: outlines and symbol search over TypeScript/JavaScript, Python,
 * Go and Rust, parsed with tree-sitter (WebAssembly, grammars compiled into
 * the program). The index lives in core/code-index; this file is the tool's
 * input, path policy and output.
 */
import { readFileSync } from "node:fs";
import { excerpt, findDefinitions, outlineLines, qualified, searchSymbols, symbolLine, type Hit } from "../../code-index/query.ts";
import { poolState, workersWanted } from "../../code-index/pool.ts";
import { indexFor, type IndexedFile } from "../../code-index/store.ts";
import { langFor } from "../../code-index/grammars.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../types.ts";
import { checkRead, display, done, fail, guarded, int, plural, policyFor, statOrNull, str, ToolInputError } from "./common.ts";

type Action = "outline" | "symbols" | "definition";

interface Input {
  action: Action;
  path?: string;
  query?: string;
  max_results?: number;
}

const DEFAULT_LIMIT: Record<Action, number> = { outline: 400, symbols: 50, definition: 10 };
/** Lines shown before a definition, and at most this many of its own lines. */
const CONTEXT_BEFORE = 2;
const CONTEXT_BODY = 8;

function outline(files: IndexedFile[], single: boolean, limit: number, ctx: ToolContext): string {
  if (single) {
    const f = files[0]!;
    if (f.entry.note) return `${display(f.abs, ctx)}: ${f.entry.note}`;
    if (f.entry.symbols.length === 0) return `no symbols in ${display(f.abs, ctx)}`;
    const lines = outlineLines(f);
    if (lines.length > limit) return [...lines.slice(0, limit), `… ${lines.length - limit} more symbols; raise max_results to see them`].join("\n");
    return lines.join("\n");
  }
  const out: string[] = [];
  let symbols = 0;
  let cutAt = -1;
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    symbols += f.entry.symbols.length;
    if (cutAt >= 0 || (f.entry.symbols.length === 0 && !f.entry.note)) continue;
    const body = f.entry.note ? [] : outlineLines(f, "  ");
    if (out.length + 1 + body.length > limit && out.length > 0) {
      cutAt = i;
      continue;
    }
    out.push(f.entry.note ? `${display(f.abs, ctx)} (${f.entry.note})` : display(f.abs, ctx), ...body.slice(0, limit - out.length - 1));
  }
  if (files.length === 0) return "no TypeScript, JavaScript, Python, Go or Rust files here";
  if (cutAt >= 0) {
    const rest = files.slice(cutAt).filter((f) => f.entry.symbols.length > 0);
    out.push(`… output cut at ${limit} lines: ${plural(rest.length, "more file")} with symbols not shown; outline a narrower path, use action symbols, or raise max_results`);
  }
  const empty = files.filter((f) => f.entry.symbols.length === 0 && !f.entry.note).length;
  out.push(`(${plural(files.length, "file")}, ${plural(symbols, "symbol")}${empty > 0 ? `; ${plural(empty, "file")} without symbols not listed` : ""})`);
  return out.join("\n");
}

function definitions(hits: Hit[], limit: number): string {
  const out: string[] = [];
  const texts = new Map<string, string | null>();
  for (const h of hits.slice(0, limit)) {
    out.push(symbolLine(h));
    let text = texts.get(h.file.abs);
    if (text === undefined) {
      try {
        text = readFileSync(h.file.abs, "utf8");
      } catch {
        text = null;
      }
      texts.set(h.file.abs, text);
    }
    if (text !== null) out.push(...excerpt(text, h.sym.line - CONTEXT_BEFORE, Math.min(h.sym.endLine, h.sym.line + CONTEXT_BODY - 1), h.sym.line));
  }
  if (hits.length > limit) out.push(`… ${plural(hits.length - limit, "more definition")}; raise max_results to see them`);
  return out.join("\n");
}

async function codeIndex(input: Input, ctx: ToolContext): Promise<ToolResult> {
  const action = str(input, "action") as Action;
  if (!(action in DEFAULT_LIMIT)) throw new ToolInputError(`"action" must be outline, symbols or definition`);
  const path = str(input, "path", { optional: true }) || ".";
  const query = action === "outline" ? "" : str(input, "query", { optional: true }).trim();
  if (action !== "outline" && !query) throw new ToolInputError(`"query" is required for ${action}: ${action === "symbols" ? "the text to search for" : "the symbol's name"}`);
  const limit = int(input, "max_results", { min: 1, def: DEFAULT_LIMIT[action] })!;
  const d = checkRead(path, ctx);
  if (!d.allowed) return fail(d.reason);
  const st = statOrNull(d.path);
  if (!st) return fail(`not found: ${display(d.path, ctx)}`);
  const single = st.isFile();
  if (single && !langFor(d.path)) {
    return fail(`${display(d.path, ctx)}: code_index reads TypeScript/JavaScript, Python, Go and Rust files (.ts .tsx .js .jsx .mjs .cjs .py .go .rs); use read_file or grep for others`);
  }
  if (!single && !st.isDirectory()) return fail(`${display(d.path, ctx)} is not a file or directory`);
  const index = indexFor(ctx.workspace, ctx.tmpDir || null);
  const { files, capped } = await index.refresh(d.path, policyFor(ctx), ctx.signal);
  let note = capped ? "\n(the index stopped at 50,000 source files; give a narrower path)" : "";
  // Asked for parsing workers (REASONIX_CODE_INDEX_WORKERS) but they could not run: say why.
  const broken = workersWanted() > 0 ? poolState().broken : null;
  if (broken) note += `\n(parsed in-process: ${broken})`;
  if (action === "outline") return done(outline(files, single, limit, ctx) + note);
  if (action === "symbols") {
    const hits = searchSymbols(files, query, limit);
    if (hits.length === 0) return done(`no symbols match ${JSON.stringify(query)}${note}`);
    const lines = hits.slice(0, limit).map(symbolLine);
    if (hits.length > limit) lines.push(`… ${hits.length - limit} more; refine the query or raise max_results`);
    return done(lines.join("\n") + note);
  }
  const defs = findDefinitions(files, query);
  if (defs.length === 0) {
    const near = searchSymbols(files, query.replace(/^.*[.:]/, "")).slice(0, 5);
    return done(`no definition of ${JSON.stringify(query)} found${near.length ? `; similar: ${near.map((h) => `${qualified(h.sym)} (${h.file.rel}:${h.sym.line})`).join(", ")}` : ""}${note}`);
  }
  return done(definitions(defs, limit) + note);
}

export const codeIndexTool: ToolDefinition<Input> = {
  name: "code_index",
  description:
    "Outline and search code declarations in TypeScript/JavaScript, Python, Go and Rust (parsed with tree-sitter). action outline: the classes, functions, methods, interfaces, types, structs, traits and enums of a file or directory, with their line numbers. action symbols: declarations whose name matches query (exact, prefix, part of a word, or letters in order), best first. action definition: where the declaration named query (Name or Container.name) is, with its first lines. Honours .gitignore, skips node_modules; re-reads only files that changed.",
  inputSchema: {
    type: "object",
    properties: {
      action: { type: "string", enum: ["outline", "symbols", "definition"] },
      path: { type: "string", description: "file or directory to outline or search (default: the workspace)" },
      query: { type: "string", description: "symbols: text to match against names; definition: the symbol's name" },
      max_results: { type: "integer", minimum: 1, description: "cap on output lines (outline), matches (symbols) or definitions" },
    },
    required: ["action"],
    additionalProperties: false,
  },
  kind: "read",
  summarize: (i) => `code_index ${i?.action ?? "?"}${i?.query ? ` ${JSON.stringify(i.query)}` : ""}${i?.path ? ` in ${i.path}` : ""}`,
  paths: (i) => [i?.path || "."],
  run: guarded(codeIndex),
};
