// An answer's markdown: closed blocks rendered once (in groups that never
// re-render), the open last block rendered per update. Work per update stays
// flat however long the answer grows.
import { useRef } from "preact/hooks";
import { newSplitter, renderBlock, splitMore, streamingShown, type Splitter } from "../markdown.ts";
import { pure } from "../pure.ts";

const GROUP = 32;

interface Cache {
  length: number;
  sp: Splitter;
  /** Closed blocks' HTML in groups of GROUP; full groups never change. */
  groups: string[][];
  done: number;
}

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.className = "offscreen";
    document.body.append(ta);
    ta.select();
    const ok = document.execCommand("copy");
    ta.remove();
    return ok;
  }
}

/** Copy buttons inside rendered markdown (delegated: no inline handlers under the CSP). */
export function onCopyClick(e: MouseEvent): void {
  const btn = (e.target as HTMLElement).closest("[data-copy]") as HTMLButtonElement | null;
  if (!btn) return;
  const code = btn.closest(".codeblock")?.querySelector("pre")?.textContent ?? "";
  void copyText(code).then((ok) => {
    btn.textContent = ok ? "Copied" : "Copy failed";
    setTimeout(() => (btn.textContent = "Copy"), 1500);
  });
}

const Group = pure(({ blocks }: { blocks: string[]; n: number }) => (
  <div class="md-group">{blocks.map((h, i) => <div key={i} class="md-block" dangerouslySetInnerHTML={{ __html: h }} />)}</div>
));

export function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  const ref = useRef<Cache | null>(null);
  let c = ref.current;
  // Streaming only appends; anything else (a replaced answer) starts over.
  if (!c || text.length < c.sp.scanned) c = ref.current = { length: 0, sp: newSplitter(), groups: [], done: 0 };
  c.length = text.length;
  splitMore(c.sp, text);
  const cuts = c.sp.cuts;
  for (; c.done < cuts.length; c.done++) {
    const i = c.done;
    const html = renderBlock(text.slice(i ? cuts[i - 1] : 0, cuts[i]), true);
    const last = c.groups[c.groups.length - 1];
    if (last && last.length < GROUP) c.groups[c.groups.length - 1] = [...last, html];
    else c.groups.push([html]);
  }
  const open = text.slice(cuts.length ? cuts[cuts.length - 1]! : 0);
  const tail = streaming ? streamingShown(open) : open;
  // data-chars: how much of the answer has arrived (tests wait for it mid-stream).
  return (
    <div class="md" onClick={onCopyClick} data-chars={text.length}>
      {c.groups.map((g, i) => <Group key={i} blocks={g} n={g.length} />)}
      {tail.trim() ? <div key="tail" class="md-block" dangerouslySetInnerHTML={{ __html: renderBlock(tail, !streaming) }} /> : null}
    </div>
  );
}
