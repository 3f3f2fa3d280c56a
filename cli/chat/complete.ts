// Editor completions: `/` commands come from pi-tui's provider; `@path`
// lists one directory level of the workspace at a time (pi-tui's own `@`
// search needs the external `fd` tool and walks the whole tree).
import { CombinedAutocompleteProvider, type AutocompleteItem, type AutocompleteProvider, type SlashCommand } from "@mariozechner/pi-tui";
import { readdirSync } from "node:fs";
import { join, resolve, sep } from "node:path";

const MAX_ITEMS = 50;
const HIDDEN = new Set([".git", "node_modules"]);

/** The `@…` token that ends at the cursor, if any. */
export function atToken(textBeforeCursor: string): string | undefined {
  return /(?:^|\s)(@[^\s"]*)$/.exec(textBeforeCursor)?.[1];
}

/** Entries of one workspace directory level matching `@dir/partial` (never outside the workspace). */
export function pathItems(workspace: string, token: string): AutocompleteItem[] {
  const rel = token.slice(1);
  const cut = rel.lastIndexOf("/");
  const dir = cut >= 0 ? rel.slice(0, cut + 1) : "";
  const partial = (cut >= 0 ? rel.slice(cut + 1) : rel).toLowerCase();
  const abs = resolve(workspace, dir);
  if (abs !== workspace && !abs.startsWith(workspace + sep)) return [];
  let entries;
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => !HIDDEN.has(e.name) && (partial.startsWith(".") || !e.name.startsWith(".")) && e.name.toLowerCase().startsWith(partial))
    .sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name))
    .slice(0, MAX_ITEMS)
    .map((e) => {
      const isDir = e.isDirectory() || (e.isSymbolicLink() && isDirectory(join(abs, e.name)));
      const name = `${e.name}${isDir ? "/" : ""}`;
      return { value: `@${dir}${name}`, label: name };
    });
}

function isDirectory(p: string): boolean {
  try {
    readdirSync(p);
    return true;
  } catch {
    return false;
  }
}

export class ChatCompletions implements AutocompleteProvider {
  private readonly inner: CombinedAutocompleteProvider;

  constructor(
    commands: SlashCommand[],
    private readonly workspace: string,
  ) {
    this.inner = new CombinedAutocompleteProvider(commands, workspace, null);
  }

  async getSuggestions(lines: string[], cursorLine: number, cursorCol: number, options: { signal: AbortSignal; force?: boolean }) {
    const token = atToken((lines[cursorLine] ?? "").slice(0, cursorCol));
    if (token !== undefined) {
      const items = pathItems(this.workspace, token);
      return items.length ? { items, prefix: token } : null;
    }
    return this.inner.getSuggestions(lines, cursorLine, cursorCol, options);
  }

  applyCompletion(lines: string[], cursorLine: number, cursorCol: number, item: AutocompleteItem, prefix: string) {
    return this.inner.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.inner.shouldTriggerFileCompletion(lines, cursorLine, cursorCol);
  }
}
