// Sessions: list and create, and per session (`/api/sessions/:id/<action>`)
// history, resume, prompt, steer, cancel, approvals, questions, rewind, fork, title,
// mode, effort, model, goal and slash commands. A new action is a name in
// ACTIONS (so its path gets the session-id check) and one `on(…)` line.
import type { Context, MiddlewareHandler } from "hono";
import { APPROVAL_DECISIONS as DECISIONS, REWIND_MODES, type PermissionMode } from "../../protocol/modes.ts";
import { ApiError } from "../api-error.ts";
import { commandRoute } from "../command-route.ts";
import { flag, MAX_PROMPT_BODY, need, PROMPT_BODY_WHY, oneOf, pastedImages, readJson, str, turnNumber } from "./body.ts";
import type { ServeApp, ServeDeps, ServeEnv } from "./context.ts";
import { json, problem } from "./respond.ts";

type Handler = (c: Context<ServeEnv>, id: string) => Response | Promise<Response>;

/** Session ids name files; never let one climb out of the sessions directory. */
const SESSION_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/** What may follow `/api/sessions/:id/` (":x" = one segment): each needs its `on(…)` below. */
const ACTIONS = ["history", "resume", "prompt", "cancel", "goal", "steer", "command", "rewind", "fork", "title", "mode", "effort", "model", "jobs", "approvals/:approval", "questions/:question", "queue", "queue/:n", "queue/:n/images/:k"] as const;
type SessionAction = (typeof ACTIONS)[number];
const ACTION_PATHS = ACTIONS.map((a) => new RegExp(`^${a.replace(/:[A-Za-z]+/g, "[^/]+")}$`));

/**
 * Any method on a session path or one of its actions checks the id first
 * (400 bad_id), before the method or a HEAD is refused: mount on /api/sessions/*.
 */
export const sessionIdCheck: MiddlewareHandler<ServeEnv> = async (c, next) => {
  const m = /^\/api\/sessions\/([^/]+)(?:\/(.+))?$/.exec(c.env.url.pathname);
  if (m && (m[2] === undefined || ACTION_PATHS.some((a) => a.test(m[2]!)))) {
    let id: string;
    try {
      id = decodeURIComponent(m[1]!);
    } catch {
      throw new ApiError(400, "bad_id", "malformed session id");
    }
    if (!SESSION_ID.test(id)) throw new ApiError(400, "bad_id", "malformed session id");
  }
  await next();
};

export function sessionRoutes(app: ServeApp, { sessions, hub }: ServeDeps): void {
  app.get("/api/sessions", async () => json({ sessions: await sessions.list() }));
  app.post("/api/sessions", async (c) => {
    const s = await sessions.create(str(await readJson(c.req.raw), "model", false));
    return json({ id: s.id, workspace: s.workspace }, 201);
  });

  const on = (method: "GET" | "POST" | "DELETE", action: SessionAction | "", handler: Handler) =>
    app.on(method, action ? `/api/sessions/:id/${action}` : "/api/sessions/:id", (c) => handler(c, c.req.param("id")!));
  const body = (c: Context<ServeEnv>) => readJson(c.req.raw);

  on("DELETE", "", async (_c, id) => {
    await sessions.remove(id);
    return json({ deleted: id });
  });
  on("GET", "", async (_c, id) => {
    const s = (await sessions.list()).find((x) => x.id === id);
    return s ? json(s) : problem(404, "not_found", `no session "${id}"`);
  });
  // `seq`: the last envelope the snapshot includes; a client drops live events up to it.
  on("GET", "history", async (_c, id) => {
    const events = await sessions.history(id);
    return json({ id, busy: sessions.isBusy(id), seq: hub.lastSeq, events });
  });
  on("POST", "resume", async (_c, id) => {
    const s = await sessions.get(id);
    return json({ id: s.id, workspace: s.workspace, busy: s.busy, seq: hub.lastSeq, model: s.model, ...(sessions.mode(id) ? { mode: sessions.mode(id) } : {}), events: s.history() });
  });
  on("POST", "command", async (c, id) => json(await commandRoute(sessions, id, await body(c))));
  // The session's background shell jobs (bash run_in_background), for the web UI's indicator.
  on("GET", "jobs", (_c, id) => json({ jobs: sessions.jobs(id).map(({ id, command, status, exitCode, signal, startedAt, endedAt }) => ({ id, command, status, exitCode, signal, startedAt, ...(endedAt ? { endedAt } : {}) })) }));
  on("GET", "goal", async (_c, id) => json(await sessions.goal(id, "status")));
  on("POST", "goal", async (c, id) => {
    const b = await body(c);
    return json(await sessions.goal(id, need(b, "action"), str(b, "objective", false)));
  });
  on("POST", "steer", async (c, id) => {
    const b = await body(c);
    const text = need(b, "text");
    return json({ disposition: await sessions.steer(id, text, flag(b, "start_if_idle")) });
  });
  on("POST", "rewind", async (c, id) => {
    const b = await body(c);
    const turn = turnNumber(b.turn)!;
    const mode = oneOf(b, "mode", REWIND_MODES, "bad_request", `"mode" must be code, conversation or both`);
    return json(await sessions.rewind(id, turn, mode));
  });
  on("POST", "fork", async (c, id) => {
    const turn = turnNumber((await body(c)).turn, true);
    const s = await sessions.fork(id, turn);
    return json({ id: s.id, from: id, ...(turn !== undefined ? { turn } : {}) }, 201);
  });
  on("POST", "title", async (c, id) => {
    const title = (await body(c)).title;
    if (typeof title !== "string") throw new ApiError(400, "bad_request", `"title" must be a string ("" = the automatic title)`);
    return json({ title: await sessions.rename(id, title) });
  });
  on("POST", "mode", async (c, id) => {
    const mode = need(await body(c), "mode") as PermissionMode;
    await sessions.setMode(id, mode);
    return json({ mode });
  });
  on("POST", "effort", async (c, id) => json({ effort: await sessions.setEffort(id, need(await body(c), "effort")) }));
  on("POST", "model", async (c, id) => {
    const name = need(await body(c), "name");
    await sessions.setSessionModel(id, name);
    return json({ model: name });
  });
  on("POST", "prompt", async (c, id) => {
    // Pasted pictures make this body larger than the others (routes/body.ts).
    const b = await readJson(c.req.raw, MAX_PROMPT_BODY, PROMPT_BODY_WHY);
    const prompt = need(b, "prompt");
    await sessions.submit(id, prompt, pastedImages(b.images));
    return json({ accepted: true, id }, 202);
  });
  on("POST", "cancel", (_c, id) => json({ cancelled: sessions.cancel(id) }));
  on("POST", "approvals/:approval", async (c, id) => {
    const decision = oneOf(await body(c), "decision", DECISIONS, "bad_decision", `decision must be one of ${DECISIONS.join(", ")}`);
    sessions.approve(id, c.req.param("approval")!, decision);
    return json({ ok: true });
  });
  // The model's question (`ask`): { choices: [labels], text? } or { dismissed: true }; an answer that does not fit is a 400 naming why.
  on("POST", "questions/:question", async (c, id) => {
    const b = await body(c);
    if (flag(b, "dismissed")) {
      sessions.answerQuestion(id, c.req.param("question")!, { dismissed: true });
      return json({ ok: true });
    }
    const choices = b.choices ?? [];
    if (!Array.isArray(choices) || choices.some((x) => typeof x !== "string")) throw new ApiError(400, "bad_request", `"choices" must be a list of option labels`);
    const text = str(b, "text", false);
    sessions.answerQuestion(id, c.req.param("question")!, { choices, ...(text ? { text } : {}) });
    return json({ ok: true });
  });
}
