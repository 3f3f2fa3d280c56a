// The `/` menu: typing /part at the start of the prompt lists matching
// entries of the workspace's command catalog (GET /api/commands: custom
// commands, skills, MCP prompts, /docs, /compact, /mcp) after the built-in commands the web UI
// runs itself (/model, /mode, /effort, /new, /clear, /help); Enter or Tab inserts the chosen one, Esc closes.
import type { RefObject } from "preact";
import { useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { listboxKey } from "./listbox.ts";
import { PopupList } from "./PopupList.tsx";
import { webMenu } from "../web-commands.ts";
import { commandDescription } from "../../../../protocol/i18n/index.ts";

export interface CommandItem {
  name: string;
  description: string;
  argumentHint?: string;
  kind: string;
}

export interface SlashState {
  items: CommandItem[];
  active: number;
  /** Counts the /queries whose matches have been applied (rendered as data-slash-settled, so a test can wait for the menu's answer to what it typed). */
  settled: number;
  /** Counts the answers to /queries, used or dropped as stale (rendered as data-slash-answered). */
  answered: number;
  onInput(): void;
  onKey(e: KeyboardEvent): boolean;
  pick(i: number): void;
}

const SLASH = /^\/([\w.:-]*)$/;

export function useSlashMenu(box: RefObject<HTMLTextAreaElement | null>): SlashState {
  const [items, setItems] = useState<CommandItem[]>([]);
  const [active, setActive] = useState(0);
  const [settled, setSettled] = useState(0);
  const [answered, setAnswered] = useState(0);
  const catalog = useRef<Promise<CommandItem[]> | null>(null);
  const req = useRef(0);
  const query = () => {
    const el = box.current;
    return el ? (SLASH.exec(el.value.slice(0, el.selectionStart))?.[1] ?? null) : null;
  };
  // Closing the menu (a pick, Esc, no /word any more) also drops the answers still on their way:
  // one for an earlier keystroke would open the menu again after the pick.
  const close = () => {
    ++req.current;
    setItems([]);
  };
  const pick = (i: number) => {
    const el = box.current;
    const item = items[i];
    if (!el || !item) return;
    el.value = `/${item.name} ${el.value.slice(el.selectionStart)}`;
    el.selectionStart = el.selectionEnd = item.name.length + 2;
    close();
    el.focus();
  };
  return {
    items,
    active,
    settled,
    answered,
    pick,
    onInput() {
      const q = query();
      if (q === null) return close();
      // Read again each time the menu opens (MCP servers add their prompts as they come up); an error just means no menu.
      if (q === "") catalog.current = null;
      catalog.current ??= api<{ commands: CommandItem[] }>("GET", "/api/commands").then((r) => r.commands).catch(() => ((catalog.current = null), []));
      const mine = ++req.current;
      void catalog.current.then((listed) => {
        setAnswered((n) => n + 1);
        if (mine !== req.current) return;
        // The built-ins as the open session's dispatcher offers them now (its mode decides /mode's hint).
        const builtins = webMenu();
        const all = [...builtins, ...listed.filter((c) => !builtins.some((b) => b.name === c.name))];
        const low = q.toLowerCase();
        setItems(all.filter((c) => c.name.toLowerCase().startsWith(low)).slice(0, 12));
        setActive(0);
        setSettled((n) => n + 1);
      });
    },
    onKey: (e) => listboxKey(e, items.length, active, setActive, pick, close),
  };
}

export function SlashMenu({ m }: { m: SlashState }) {
  return (
    <PopupList
      label="Commands"
      items={m.items}
      active={m.active}
      pick={m.pick}
      keyOf={(c) => c.name}
      render={(c) => (
        <>
          {`/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`} <span class="hint">{c.kind === "builtin" ? commandDescription(c.name, c.description) : c.description}</span>
        </>
      )}
    />
  );
}
