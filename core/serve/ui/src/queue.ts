// The open session's queue of follow-up prompts (core/host/queue.ts) in the
// browser: loaded with the session, kept current by the server's "queue"
// notices (whichever front end changed it), changed through
// /api/sessions/:id/queue… (core/serve/routes/queue.ts).
import { api, sessionPath } from "./api.ts";
import { changed, onQueueChange, onSessionOpen, state } from "./store.ts";
import { addSystem } from "./transcript.ts";
import { newerQueueView, type QueueView } from "../../../protocol/queue.ts";

export const queue = { id: null as string | null, view: null as QueueView | null, editing: null as { n: number; text: string } | null };

/** The queue of the session open now (null while another one's is shown). */
export const shownQueue = (): QueueView | null => (queue.id && queue.id === state.current ? queue.view : null);

/** Shows `v` unless the one shown is newer (an HTTP answer can arrive after a later notice). */
function take(id: string, v: QueueView | undefined): void {
  if (!v || id !== state.current) return;
  if (queue.id === id && !newerQueueView(queue.view, v)) return;
  queue.id = id;
  queue.view = v;
  changed();
}

export async function loadQueue(id: string): Promise<void> {
  try {
    take(id, (await api<{ queue: QueueView }>("GET", sessionPath(id, "queue"))).queue);
  } catch {
    // A draft not yet created, or a session gone: nothing queued to show.
  }
}

/** The server's notice of a change (any front end). */
export const onQueueNotice = (n: { sessionId: string; queue: QueueView }): void => take(n.sessionId, n.queue);

/** Edit item `n`: its whole text (the list shows a preview) into the editor. */
export async function editQueued(id: string, n: number): Promise<void> {
  try {
    const item = await api<{ text: string }>("GET", sessionPath(id, `queue/${n}`));
    queue.editing = { n, text: item.text };
  } catch (x) {
    addSystem(state.view, `Queue: ${(x as Error).message}`, "error");
  }
  changed();
}

/** POST to the queue (`n`: an item); false, with the reason in the transcript, when it was refused. */
export async function queueAct(id: string, body: Record<string, unknown>, n?: number): Promise<boolean> {
  try {
    take(id, (await api<{ queue: QueueView }>("POST", sessionPath(id, n ? `queue/${n}` : "queue"), body)).queue);
    return true;
  } catch (x) {
    addSystem(state.view, `Queue: ${(x as Error).message}`, "error");
    changed();
    return false;
  }
}

onQueueChange((n) => onQueueNotice(n as { sessionId: string; queue: QueueView }));
onSessionOpen((id) => void loadQueue(id));
