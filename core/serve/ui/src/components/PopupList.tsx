// The drop-down list under the prompt (@ mentions, the / menu): one option per
// item, the active one marked; a mouse press picks without taking the focus
// from the prompt. Keys are handled by listboxKey (listbox.ts).
import type { ComponentChildren } from "preact";

export interface PopupListProps<T> {
  label: string;
  items: T[];
  active: number;
  pick(i: number): void;
  keyOf(item: T): string;
  render(item: T): ComponentChildren;
}

export function PopupList<T>({ label, items, active, pick, keyOf, render }: PopupListProps<T>) {
  if (!items.length) return null;
  return (
    <ul class="mentions" role="listbox" aria-label={label}>
      {items.map((item, i) => (
        <li key={keyOf(item)} role="option" aria-selected={i === active} class={i === active ? "active" : ""} onMouseDown={(e) => { e.preventDefault(); pick(i); }}>
          {render(item)}
        </li>
      ))}
    </ul>
  );
}
