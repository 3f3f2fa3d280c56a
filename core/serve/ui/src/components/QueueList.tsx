// The open session's queued prompts above the composer: each with Edit,
// Delete and Up/Down, and a thumbnail of each picture queued with it; when the queue is paused (a crash, a failed prompt, a
// pause from any front end) it says why, with a Resume button. Hidden when
// nothing is queued and nothing failed.
import { useRef } from "preact/hooks";
import { sessionPath } from "../api.ts";
import { editQueued, queue, queueAct, shownQueue } from "../queue.ts";
import { changed } from "../store.ts";

const WHY: Record<string, string> = {
  user: "Queue paused.",
  crash: "Queue paused: the server stopped before sending these (a crash?).",
  failed: "Queue paused: a queued prompt failed.",
  restored: "Queue paused: kept from the last time this session was open.",
};

function Editing({ id, n, text }: { id: string; n: number; text: string }) {
  const box = useRef<HTMLTextAreaElement>(null);
  const done = () => {
    queue.editing = null;
    changed();
  };
  const save = async () => {
    const text = box.current?.value.trim();
    if (text && (await queueAct(id, { action: "edit", text }, n))) done();
  };
  return (
    <li class="queue-item editing">
      <textarea ref={box} class="queue-edit" aria-label={`Edit queued prompt ${n}`} rows={2} defaultValue={text} onKeyDown={(e) => {
        if (e.key === "Enter" && !e.shiftKey) (e.preventDefault(), void save());
        if (e.key === "Escape") (e.preventDefault(), e.stopPropagation(), done());
      }} />
      <button type="button" class="queue-save" onClick={() => void save()}>Save</button>
      <button type="button" class="quiet" onClick={done}>Cancel</button>
    </li>
  );
}

export function QueueList({ id }: { id: string | null }) {
  const v = shownQueue();
  if (!id || !v || (!v.items.length && !v.failed)) return null;
  const act = (body: Record<string, unknown>, n?: number) => () => void queueAct(id, body, n);
  return (
    <section id="queue" class={`queue${v.paused ? " queue-paused" : ""}`} aria-label="Queued prompts">
      <div class="queue-head">
        <strong>Queued</strong> <span class="muted">{v.items.length} · sent after the running turn</span>
        {v.paused ? <span id="queue-paused" class="queue-why">{WHY[v.pausedWhy ?? "user"] ?? "Queue paused."}</span> : null}
        {v.failed ? <button type="button" id="queue-retry" onClick={act({ action: "retry" })}>Retry failed</button> : null}
        {v.paused ? <button type="button" id="queue-resume" class="primary" onClick={act({ action: "resume" })}>Resume</button> : <button type="button" id="queue-pause" class="quiet" onClick={act({ action: "pause" })}>Pause</button>}
      </div>
      <ol class="queue-items">
        {v.items.map((i) =>
          queue.editing?.n === i.n ? (
            <Editing key={i.id} id={id} n={i.n} text={queue.editing.text} />
          ) : (
            <li key={i.id} class="queue-item" data-n={i.n}>
              <span class="queue-text" title={i.preview}>{i.preview}</span>
              {i.interrupted ? <span class="muted"> (was running)</span> : null}
              {i.images?.map((name, k) => (
                <img key={k} class="queue-image" src={`${sessionPath(id, `queue/${i.n}/images/${k + 1}`)}?id=${encodeURIComponent(i.id)}`} alt={name} title={name} />
              ))}
              <button type="button" class="quiet queue-up" aria-label={`Move queued prompt ${i.n} up`} disabled={i.n === 1} onClick={act({ action: "move", to: i.n - 1 }, i.n)}>↑</button>
              <button type="button" class="quiet queue-down" aria-label={`Move queued prompt ${i.n} down`} disabled={i.n === v.items.length} onClick={act({ action: "move", to: i.n + 1 }, i.n)}>↓</button>
              <button type="button" class="quiet queue-edit-btn" aria-label={`Edit queued prompt ${i.n}`} onClick={() => void editQueued(id, i.n)}>Edit</button>
              <button type="button" class="quiet queue-delete" aria-label={`Delete queued prompt ${i.n}`} onClick={act({ action: "delete" }, i.n)}>×</button>
            </li>
          ),
        )}
      </ol>
    </section>
  );
}
