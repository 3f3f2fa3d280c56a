// @file mentions: typing @part lists matching workspace paths; Enter or Tab
// inserts the chosen one, Esc closes the list.
import type { RefObject } from "preact";
import { useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { listboxKey } from "./listbox.ts";
import { PopupList } from "./PopupList.tsx";

export interface MentionState {
  items: string[];
  active: number;
  /** Counts the /api/files answers that came back, used or dropped as stale (rendered as data-mentions-answered, so a test can wait for one). */
  answered: number;
  onInput(): void;
  onKey(e: KeyboardEvent): boolean;
  pick(i: number): void;
}

const AT = /(?:^|\s)@([\w./-]*)$/;

export function useMentions(box: RefObject<HTMLTextAreaElement | null>): MentionState {
  const [items, setItems] = useState<string[]>([]);
  const [active, setActive] = useState(0);
  const [answered, setAnswered] = useState(0);
  const req = useRef(0);
  const query = () => {
    const el = box.current;
    if (!el) return null;
    return AT.exec(el.value.slice(0, el.selectionStart))?.[1] ?? null;
  };
  // Closing the list (a pick, Esc, no @word any more) also drops the answers still on their way:
  // one for an earlier keystroke would open the list again after the pick.
  const close = () => {
    ++req.current;
    setItems([]);
  };
  const pick = (i: number) => {
    const el = box.current;
    const q = query();
    const path = items[i];
    if (!el || q === null || !path) return;
    const at = el.selectionStart - q.length;
    el.value = `${el.value.slice(0, at)}${path} ${el.value.slice(el.selectionStart)}`;
    el.selectionStart = el.selectionEnd = at + path.length + 1;
    close();
    el.focus();
  };
  return {
    items,
    active,
    answered,
    pick,
    onInput() {
      const q = query();
      if (q === null) return close();
      const mine = ++req.current;
      void api<{ files: string[] }>("GET", `/api/files?q=${encodeURIComponent(q)}`)
        .then((r) => {
          setAnswered((n) => n + 1);
          if (mine !== req.current) return;
          setItems(r.files.slice(0, 12));
          setActive(0);
        })
        .catch(() => {
          setAnswered((n) => n + 1);
          if (mine === req.current) setItems([]);
        });
    },
    onKey: (e) => listboxKey(e, items.length, active, setActive, pick, close),
  };
}

export function Mentions({ m }: { m: MentionState }) {
  return <PopupList label="Files" items={m.items} active={m.active} pick={m.pick} keyOf={(f) => f} render={(f) => f} />;
}
