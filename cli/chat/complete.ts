// Editor completions: `/` commands come from pi-tui's provider; `@path`
// lists one directory level of the workspace at a time (pi-tui's own `@`
// search needs the external `fd` tool and walks the whole tree).
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
  const { completeReference } = await import("../../core/engine/references.ts");
  // Names come from the disk: no control characters in the menu or the typed text.
  return completeReference(workspace, token, undefined, MAX_ITEMS).map((i) => ({ value: cleanText(i.value), label: cleanText(i.label) }));
}

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
