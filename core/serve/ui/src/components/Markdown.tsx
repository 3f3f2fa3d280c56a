// An answer's markdown: closed blocks rendered once, the open block per frame.
import { useRef } from "preact/hooks";
import { newSplitter, renderBlock, splitMore, type Splitter } from "../markdown.ts";

interface Cache {
  text: string;
  sp: Splitter;
  html: string[];
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

export function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  const ref = useRef<Cache | null>(null);
  let c = ref.current;
  if (!c || !text.startsWith(c.text.slice(0, c.sp.scanned))) c = ref.current = { text: "", sp: newSplitter(), html: [] };
  c.text = text;
  splitMore(c.sp, text);
  const cuts = c.sp.cuts;
  // Closed blocks: rendered once, highlighted.
  for (let i = c.html.length; i < cuts.length; i++) c.html.push(renderBlock(text.slice(i ? cuts[i - 1] : 0, cuts[i]), true));
  const tailStart = cuts.length ? cuts[cuts.length - 1]! : 0;
  const tail = text.slice(tailStart);
  return (
    <div class="md" onClick={onCopyClick}>
      {c.html.map((h, i) => <div key={i} class="md-block" dangerouslySetInnerHTML={{ __html: h }} />)}
      {tail.trim() ? <div key="tail" class="md-block" dangerouslySetInnerHTML={{ __html: renderBlock(tail, !streaming) }} /> : null}
    </div>
  );
}
