// A filterable pick list shown in place of the editor (sessions, models,
// modes, rewind targets). Type to filter, Up/Down to move, Enter to pick, Esc to cancel.
import { matchesKey, SelectList, type SelectItem } from "@mariozechner/pi-tui";
import { cleanText } from "./sanitize.ts";
import type { PickItem } from "./slash.ts";
import { c, selectTheme } from "./theme.ts";

export class Picker<T> {
  private list!: SelectList;
  private filter = "";
  private shown = 0;

  constructor(
    private readonly title: string,
    private readonly items: PickItem<T>[],
    private readonly done: (value: T | undefined) => void,
    /** The items, plural ("models"): a filter that matches none says "No matching models". */
    private readonly what = "entries",
  ) {
    this.build();
  }

  /** Items whose label or description contains the filter (SelectList only filters by prefix). */
  private build(): void {
    const f = this.filter.toLowerCase();
    const sel: SelectItem[] = [];
    this.items.forEach((it, i) => {
      // Labels can come from prompts and files: no control characters on screen.
      if (!f || `${it.label} ${it.description ?? ""}`.toLowerCase().includes(f)) sel.push({ value: String(i), label: cleanText(it.label), description: it.description && cleanText(it.description) });
    });
    this.shown = sel.length;
    this.list = new SelectList(sel, 10, selectTheme);
    this.list.onSelect = (item) => this.done(this.items[Number(item.value)]!.value);
    this.list.onCancel = () => this.done(undefined);
  }

  handleInput(data: string): void {
    if (matchesKey(data, "backspace")) {
      this.filter = this.filter.slice(0, -1);
      this.build();
      return;
    }
    if (data.length === 1 && data >= " " && data !== "\x7f") {
      this.filter += data;
      this.build();
      return;
    }
    this.list.handleInput(data);
  }

  render(width: number): string[] {
    const head = `${c.bold(this.title)}${this.filter ? c.dim(`  filter: ${this.filter}`) : c.dim("  (type to filter · Enter picks · Esc cancels)")}`;
    // SelectList's own empty line speaks of commands whatever it lists.
    if (this.shown === 0) return [head, selectTheme.noMatch(`  No matching ${this.what}`)];
    return [head, ...this.list.render(width)];
  }
}
