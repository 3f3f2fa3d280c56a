// A session's queue of follow-up prompts (core/host/queue.ts), the same
// operations as `/queue`: GET …/queue lists it; POST …/queue adds a prompt
// (`text`, and `images` as a prompt takes them) or pauses, resumes, retries or
// clears it (`action`); GET …/queue/:n shows one whole; GET
// …/queue/:n/images/:k serves its k-th picture (`?id=` the item's id: another
// item at that position is a 404); POST …/queue/:n edits, deletes or moves it.
// The session routes' id check and guards apply (ACTIONS in ./sessions.ts).
import type { Context } from "hono";
import type { PromptQueue } from "../../host/queue.ts";
import { imageType } from "../../protocol/image-type.ts";
import { ApiError, withStatuses } from "../api-error.ts";
import { refuseCommand } from "../prompt-guard.ts";
import { MAX_PROMPT_BODY, need, oneOf, pastedImages, PROMPT_BODY_WHY, readJson, type Body } from "./body.ts";
import type { ServeApp, ServeDeps, ServeEnv } from "./context.ts";
import { json, withHeaders } from "./respond.ts";

const STATUS: Record<string, number> = { queue_no_item: 404, queue_empty: 409, queue_full: 413, queue_item_too_large: 413, queue_too_large: 413 };

/** A queue refusal keeps its code and sentence: a limit is 413, a missing item 404. */
const queued = <T>(run: () => T): T => withStatuses(STATUS, run);

const position = (raw: unknown, key: string): number => {
  const n = typeof raw === "string" && /^\d{1,6}$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1) throw new ApiError(400, "bad_request", `"${key}" must be a position from 1 (as the queue lists them)`);
  return n;
};

const CONTROLS = ["add", "pause", "resume", "retry", "clear"] as const;
const ITEM_ACTIONS = ["edit", "delete", "move"] as const;

export function queueRoutes(app: ServeApp, { sessions }: ServeDeps): void {
  const live = (c: Context<ServeEnv>) => sessions.loaded(c.req.param("id")!);
  const view = (q: PromptQueue) => ({ queue: q.view() });
  const text = (b: Body) => {
    const t = need(b, "text");
    refuseCommand(t);
    return t;
  };

  app.get("/api/sessions/:id/queue", async (c) => json(view((await live(c)).host.queue)));
  app.post("/api/sessions/:id/queue", async (c) => {
    // Pictures queued with a prompt make this body as large as a prompt's (routes/body.ts).
    const b = await readJson(c.req.raw, MAX_PROMPT_BODY, PROMPT_BODY_WHY);
    const action = b.action === undefined ? "add" : oneOf(b, "action", CONTROLS, "bad_request", `"action" must be one of ${CONTROLS.join(", ")}`);
    const { host } = await live(c);
    const q = host.queue;
    return queued(() => {
      switch (action) {
        case "add": {
          const item = host.enqueue(text(b), pastedImages(b.images));
          return json({ item: { id: item.id }, ...view(q) }, 201);
        }
        case "pause":
          q.pause();
          return json(view(q));
        case "resume":
          q.resume();
          return json({ started: host.pumpQueue(), ...view(q) });
        case "retry":
          q.retry();
          return json({ started: host.pumpQueue(), ...view(q) });
        case "clear":
          return json({ cleared: q.clear(), ...view(q) });
      }
    });
  });
  app.get("/api/sessions/:id/queue/:n", async (c) => {
    const n = position(c.req.param("n"), "n");
    const q = (await live(c)).host.queue;
    return queued(() => {
      const item = q.get(n);
      return json({ n, id: item.id, text: item.text, addedAt: item.addedAt });
    });
  });
  app.get("/api/sessions/:id/queue/:n/images/:k", async (c) => {
    const n = position(c.req.param("n"), "n");
    const k = position(c.req.param("k"), "k");
    const q = (await live(c)).host.queue;
    return queued(() => {
      const item = q.get(n);
      const img = item.images?.[k - 1];
      const id = c.req.query("id");
      if ((id !== undefined && id !== item.id) || !img?.data) throw new ApiError(404, "queue_no_item", `queued prompt ${n} has no picture ${k}${id !== undefined && id !== item.id ? " (the queue changed)" : ""}`);
      const bytes = Buffer.from(img.data, "base64");
      // Typed by its first bytes (as when it was queued), never by what the queue file says.
      return withHeaders(new Response(bytes, { headers: { "content-type": imageType(bytes) ?? "application/octet-stream" } }));
    });
  });
  app.post("/api/sessions/:id/queue/:n", async (c) => {
    const n = position(c.req.param("n"), "n");
    const b = await readJson(c.req.raw);
    const action = oneOf(b, "action", ITEM_ACTIONS, "bad_request", `"action" must be one of ${ITEM_ACTIONS.join(", ")}`);
    const q = (await live(c)).host.queue;
    return queued(() => {
      if (action === "edit") q.edit(n, text(b));
      else if (action === "delete") q.delete(n);
      else q.move(n, position(b.to, "to"));
      return json(view(q));
    });
  });
}
