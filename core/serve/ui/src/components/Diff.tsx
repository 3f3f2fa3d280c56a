// A file diff from the engine (unified hunks), unified or side by side.
import { useState } from "preact/hooks";
import type { FileDiff } from "../transcript.ts";

type Row = { o?: number; n?: number; t: " " | "-" | "+"; s: string };

function rows(d: FileDiff): (Row | { gap: string })[] {
  const out: (Row | { gap: string })[] = [];
  for (const h of d.hunks) {
    out.push({ gap: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@` });
    let o = h.oldStart;
    let n = h.newStart;
    for (const l of h.lines) {
      const t = l[0] as Row["t"];
      const s = l.slice(1);
      if (t === "-") out.push({ o: o++, t, s });
      else if (t === "+") out.push({ n: n++, t, s });
      else out.push({ o: o++, n: n++, t: " ", s });
    }
  }
  return out;
}

function Unified({ d }: { d: FileDiff }) {
  return (
    <table class="diff unified">
      <tbody>
        {rows(d).map((r, i) =>
          "gap" in r ? (
            <tr key={i} class="gap"><td colSpan={3}>{r.gap}</td></tr>
          ) : (
            <tr key={i} class={r.t === "-" ? "del" : r.t === "+" ? "add" : ""}>
              <td class="ln">{r.o ?? ""}</td>
              <td class="ln">{r.n ?? ""}</td>
              <td class="src"><span class="sign" aria-hidden="true">{r.t}</span>{r.s}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function Split({ d }: { d: FileDiff }) {
  const out: preact.JSX.Element[] = [];
  const all = rows(d);
  for (let i = 0; i < all.length; ) {
    const r = all[i]!;
    if ("gap" in r) {
      out.push(<tr key={i} class="gap"><td colSpan={4}>{r.gap}</td></tr>);
      i++;
      continue;
    }
    if (r.t === " ") {
      out.push(<tr key={i}><td class="ln">{r.o}</td><td class="src">{r.s}</td><td class="ln">{r.n}</td><td class="src">{r.s}</td></tr>);
      i++;
      continue;
    }
    const dels: Row[] = [];
    const adds: Row[] = [];
    while (i < all.length && !("gap" in all[i]!) && (all[i] as Row).t === "-") dels.push(all[i++] as Row);
    while (i < all.length && !("gap" in all[i]!) && (all[i] as Row).t === "+") adds.push(all[i++] as Row);
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) {
      const a = dels[k];
      const b = adds[k];
      out.push(
        <tr key={`${i}-${k}`}>
          <td class="ln">{a?.o ?? ""}</td><td class={a ? "src del" : "src"}>{a?.s ?? ""}</td>
          <td class="ln">{b?.n ?? ""}</td><td class={b ? "src add" : "src"}>{b?.s ?? ""}</td>
        </tr>,
      );
    }
  }
  return <table class="diff split"><tbody>{out}</tbody></table>;
}

const KIND: Record<FileDiff["kind"], string> = { add: "new file", modify: "modified", delete: "deleted", move: "moved" };

export function FileDiffView({ d }: { d: FileDiff }) {
  const [split, setSplit] = useState(false);
  return (
    <div class="filediff" data-path={d.path}>
      <div class="filediff-head">
        <span class="path">{d.from ? `${d.from} → ${d.path}` : d.path}</span>
        <span class="muted"> {KIND[d.kind]}</span>
        <span class="stat"><span class="plus">+{d.added}</span> <span class="minus">−{d.removed}</span></span>
        {d.hunks.length ? (
          <button type="button" class="link wide-only" aria-pressed={split} onClick={() => setSplit(!split)}>
            {split ? "Unified" : "Side by side"}
          </button>
        ) : null}
      </div>
      {d.hunks.length ? <div class="diff-scroll" tabIndex={0}>{split ? <Split d={d} /> : <Unified d={d} />}</div> : null}
      {d.truncated ? <div class="muted small">{d.hunks.length ? "Diff cut short." : "Too large or binary to show."}</div> : null}
    </div>
  );
}

export function Diffs({ diffs }: { diffs: FileDiff[] }) {
  return <div class="diffs">{diffs.map((d, i) => <FileDiffView key={`${d.path}-${i}`} d={d} />)}</div>;
}
