// Editor completions: `/` commands come from pi-tui's provider; `@path`
// lists the matching entries of the directory level it names, then files
// anywhere in the workspace that match fuzzily: the web composer's search
// (core/serve/files.ts: bounded walk, .gitignore and hidden files respected).
// pi-tui's own `@` search needs the external `fd` tool.
import { CombinedAutocompleteProvider, type AutocompleteItem, type AutocompleteProvider, type SlashCommand } from "@mariozechner/pi-tui";
import { cleanText } from "./sanitize.ts";

const MAX_ITEMS = 50;

/** The `@…` token that ends at the cursor, if any. */
export function atToken(textBeforeCursor: string): string | undefined {
  return /(?:^|\s)(@[^\s"]*)$/.exec(textBeforeCursor)?.[1];
}

/**
 * Entries of one workspace directory level matching `@dir/partial` (never
 * outside the workspace; .gitignore'd entries left out): the same function
 * the web UI's /api/complete uses.
 */
export async function pathItems(workspace: string, token: string): Promise<AutocompleteItem[]> {
  // Loaded on first use: the path policy and .gitignore code stay out of the first frame.
  const [{ completeReference }, { WorkspaceFiles }] = await Promise.all([import("../../core/engine/references.ts"), import("../../core/serve/files.ts")]);
  const items = completeReference(workspace, token, undefined, MAX_ITEMS).map((i) => ({ value: i.value, label: i.label }));
  const query = token.slice(1);
  if (query && !query.endsWith("/") && items.length < MAX_ITEMS) {
    let files = treeFiles.get(workspace);
    if (!files) treeFiles.set(workspace, (files = new WorkspaceFiles(() => workspace)));
    const seen = new Set(items.map((i) => i.value));
    for (const rel of files.search(query, MAX_ITEMS)) {
      if (items.length >= MAX_ITEMS) break;
      if (!seen.has(`@${rel}`)) items.push({ value: `@${rel}`, label: rel });
    }
  }
  // Names come from the disk: no control characters in the menu or the typed text.
  return items.map((i) => ({ value: cleanText(i.value), label: cleanText(i.label) }));
}

/** One cached tree walk per workspace (it refreshes itself after a few seconds). */
const treeFiles = new Map<string, import("../../core/serve/files.ts").WorkspaceFiles>();

export class ChatCompletions implements AutocompleteProvider {
  private inner: CombinedAutocompleteProvider;
  private list: readonly unknown[] | undefined;

  /** `commands`: a list, or a function asked at each use (the catalog grows as MCP servers come up). */
  constructor(
    private readonly commands: SlashCommand[] | (() => { key: readonly unknown[]; commands(): SlashCommand[] }),
    private readonly workspace: string,
  ) {
    this.inner = new CombinedAutocompleteProvider(Array.isArray(commands) ? commands : [], workspace, null);
  }

  /** The provider for the catalog as it is now (rebuilt only when the catalog changed). */
  private current(): CombinedAutocompleteProvider {
    if (Array.isArray(this.commands)) return this.inner;
    const now = this.commands();
    if (now.key !== this.list) {
      this.list = now.key;
      this.inner = new CombinedAutocompleteProvider(now.commands(), this.workspace, null);
    }
    return this.inner;
  }

  async getSuggestions(lines: string[], cursorLine: number, cursorCol: number, options: { signal: AbortSignal; force?: boolean }) {
    const token = atToken((lines[cursorLine] ?? "").slice(0, cursorCol));
    if (token !== undefined) {
      const items = await pathItems(this.workspace, token);
      return items.length ? { items, prefix: token } : null;
    }
    return this.current().getSuggestions(lines, cursorLine, cursorCol, options);
  }

  applyCompletion(lines: string[], cursorLine: number, cursorCol: number, item: AutocompleteItem, prefix: string) {
    return this.current().applyCompletion(lines, cursorLine, cursorCol, item, prefix);
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.current().shouldTriggerFileCompletion(lines, cursorLine, cursorCol);
  }
}
