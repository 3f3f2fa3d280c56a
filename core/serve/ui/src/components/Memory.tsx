// The Memory panel: facts by scope and type, a fact's revisions, the recall
// trace of the open session's last turn, the archive, and recover from a
// fact file on the server's machine. Fact text is shown as text, never HTML.
import { useEffect, useState } from "preact/hooks";
import { forgetFact, loadMemory, memory, openMemory, recoverFact, restoreFact, showRevisions, type FactRow, type RecallTrace } from "../memory.ts";
import { isBusy, state } from "../store.ts";

const day = (iso: string) => iso.slice(0, 10);

function Fact({ f }: { f: FactRow }) {
  return (
    <li class="fact" data-fact={f.id}>
      <div class="fact-head">
        <code class="fact-id">{f.id}</code>
        <span class="muted">{` r${f.revision} · updated ${day(f.updated)}${f.stale ? " · stale" : ""}`}</span>
      </div>
      <p class="fact-text">{f.text}</p>
      <div class="buttons">
        <button type="button" class="fact-revisions" onClick={() => void showRevisions(memory.revisionsOf === f.id ? null : f.id)}>Revisions</button>
        {f.archived ? (
          <button type="button" class="fact-restore" onClick={() => void restoreFact(f.id, f.revision)}>Restore</button>
        ) : (
          <button type="button" class="fact-forget" onClick={() => void forgetFact(f)}>Forget</button>
        )}
      </div>
      {memory.revisionsOf === f.id ? <Revisions id={f.id} /> : null}
    </li>
  );
}

function Revisions({ id }: { id: string }) {
  return (
    <ol class="revisions" aria-label={`Revisions of ${id}`}>
      {memory.revisions.map((r) => (
        <li key={r.revision} data-revision={r.revision}>
          <span class="muted">{`r${r.revision} · ${day(r.updated)} · ${r.type}${r.current ? (r.archived ? " · current, archived" : " · current") : ""}`}</span>
          <p class="fact-text">{r.text}</p>
          {r.current && !r.archived ? null : <button type="button" class="revision-restore" onClick={() => void restoreFact(id, r.revision)}>{`Restore r${r.revision}`}</button>}
        </li>
      ))}
    </ol>
  );
}

/** Facts of one scope, grouped by type. */
function Scope({ title, facts }: { title: string; facts: FactRow[] }) {
  if (!facts.length) return null;
  const types = [...new Set(facts.map((f) => f.type))];
  return (
    <section class="mem-scope">
      <h3>{title}</h3>
      {types.map((t) => (
        <div key={t} class="mem-type">
          <h4>{t}</h4>
          <ul class="facts">{facts.filter((f) => f.type === t).map((f) => <Fact key={f.id} f={f} />)}</ul>
        </div>
      ))}
    </section>
  );
}

function Trace({ trace }: { trace: RecallTrace | null }) {
  if (!memory.recallOn) return <p id="recall-trace" class="muted">Recall is off ([memory] recall = false in your config).</p>;
  if (!state.current) return <p id="recall-trace" class="muted">Open a session to see what recall chose for its last message.</p>;
  if (!trace) return <p id="recall-trace" class="muted">No recall yet in this session: it runs before each message you send.</p>;
  return (
    <div id="recall-trace">
      <p class="quote">{trace.query}</p>
      {trace.suppressed ? (
        <p class="muted">{`Nothing recalled: ${trace.suppressed}.`}</p>
      ) : (
        <>
          <p class="muted">{`${trace.considered} facts searched, ${trace.relevant} relevant, ${trace.picked.length} sent · budget used ${trace.picked.length}/${trace.budget.facts} facts, ${trace.chars}/${trace.budget.chars} characters`}</p>
          <ul class="picks">
            {trace.picked.map((p) => (
              <li key={p.id} data-pick={p.id}>
                <code>{p.id}</code>
                <span class="muted">{` score ${p.score} · ${p.scope} ${p.type} r${p.revision} · updated ${day(p.updated)}${p.stale ? " · stale (ranked lower)" : ""} · matched ${p.matched.join(", ") || "(type)"}`}</span>
              </li>
            ))}
          </ul>
          {trace.overBudget.length ? <p class="muted">{`Left out for the budget: ${trace.overBudget.join(", ")}`}</p> : null}
        </>
      )}
    </div>
  );
}

function Recover() {
  const [path, setPath] = useState("");
  return (
    <form
      class="mem-recover"
      onSubmit={(e) => {
        e.preventDefault();
        if (path.trim()) void recoverFact(path.trim());
      }}
    >
      <label for="recover-path">Recover a fact file (a backup on the server's machine)</label>
      <div class="buttons">
        <input id="recover-path" value={path} placeholder="/path/to/fact.md" onInput={(e) => setPath((e.target as HTMLInputElement).value)} />
        <button type="submit" id="recover-go">Recover</button>
      </div>
    </form>
  );
}

export function MemoryPanel() {
  const busy = isBusy();
  // A turn that ended has a new trace: reload while the panel is open.
  useEffect(() => {
    if (memory.open && !busy) void loadMemory();
  }, [busy, state.current]);
  if (!memory.open) return null;
  const project = memory.facts.filter((f) => f.scope === "project");
  const global = memory.facts.filter((f) => f.scope === "global");
  return (
    <div class="dialog-backdrop">
      <div id="memory-panel" class="card dialog memory" role="dialog" aria-modal="true" aria-labelledby="memory-h">
        <div class="mem-top">
          <h2 id="memory-h">Memory</h2>
          <button type="button" id="memory-refresh" onClick={() => void loadMemory()} disabled={memory.loading}>Refresh</button>
          <button type="button" id="memory-close" onClick={() => openMemory(false)} autoFocus>Close</button>
        </div>
        {memory.note ? <p id="memory-note" class={`banner ${memory.note.tone}`} role={memory.note.tone === "error" ? "alert" : "status"}>{memory.note.text}</p> : null}
        <section>
          <h3>Recall of the last message</h3>
          <Trace trace={memory.trace} />
        </section>
        <div id="memory-facts">
          {!memory.facts.length && !memory.loading ? <p class="muted">No facts remembered yet.</p> : null}
          <Scope title={`Project facts (${memory.workspace})`} facts={project} />
          <Scope title="Global facts" facts={global} />
        </div>
        {memory.problems.map((p) => <p class="muted unreadable">{`Unreadable: ${p.message}`}</p>)}
        <section id="memory-archived">
          <h3>Archived</h3>
          {memory.archived.length ? <ul class="facts">{memory.archived.map((f) => <Fact key={f.id} f={f} />)}</ul> : <p class="muted">No archived facts.</p>}
        </section>
        <Recover />
      </div>
    </div>
  );
}
