// Reasonix web UI: one dependency-free script, embedded into the binary and
// served by core/serve. It talks to the JSON API and renders the engine's
// events (core/engine/types.ts) as they stream in over WebSocket, or SSE when
// WebSocket is unavailable.

type Json = Record<string, any>;

interface Envelope {
  seq: number;
  sessionId?: string;
  event?: Json;
  server?: Json;
}

interface SessionRow {
  id: string;
  title?: string;
  model?: string;
  updatedAt?: string;
  turns?: number;
  busy: boolean;
  live: boolean;
}

interface ModelRow {
  name: string;
  model: string;
  kind: string;
  hasKey: boolean;
  apiKeyEnv?: string;
}

const state = {
  authMode: document.body.dataset.auth ?? "token",
  status: null as Json | null,
  sessions: [] as SessionRow[],
  models: [] as ModelRow[],
  selectedModel: null as string | null,
  current: null as string | null,
  busy: new Set<string>(),
  lastSeq: 0,
  loadingSession: false,
  transport: "offline" as "offline" | "websocket" | "sse",
  todos: [] as { content: string; status: string }[],
};

// ---------- DOM helpers ----------

type Child = Node | string | null | undefined | false;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Json = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v as EventListener);
    else if (k === "class") el.className = String(v);
    else if (k === "text") el.textContent = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

const $ = <T extends HTMLElement = HTMLElement>(sel: string): T => document.querySelector(sel) as T;

function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

// ---------- HTTP ----------

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function api<T = Json>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: method === "GET" ? {} : { "content-type": "application/json" },
    body: method === "GET" ? undefined : JSON.stringify(body ?? {}),
  });
  if (res.status === 204) return {} as T;
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    if (res.status === 401 && path.startsWith("/api/")) showLogin();
    throw new HttpError(res.status, data?.error?.message ?? `${res.status} ${res.statusText}`);
  }
  return data as T;
}

// ---------- layout ----------

function renderShell(): void {
  const app = $("#app");
  clear(app);
  app.append(
    h("header", { class: "top" },
      h("div", { class: "brand" }, h("span", { class: "logo", "aria-hidden": "true" }, "◆"), "Reasonix"),
      h("div", { class: "workspace", id: "workspace", title: "workspace" }),
      h("label", { class: "model" }, h("span", { class: "sr" }, "Model"), h("select", { id: "model", "aria-label": "Model", onchange: onModelChange })),
      h("span", { id: "conn", class: "conn offline", title: "live events" }, "offline"),
    ),
    h("div", { class: "body" },
      h("nav", { class: "sessions", "aria-label": "Sessions" },
        h("button", { id: "new-session", class: "primary wide", onclick: () => void newSession() }, "+ New session"),
        h("ul", { id: "session-list" }),
      ),
      h("main", { class: "chat" },
        h("div", { id: "banner", class: "banner", hidden: true }),
        h("section", { id: "trust", class: "trust", hidden: true, "aria-label": "Workspace trust" }),
        h("div", { id: "transcript", class: "transcript", "aria-live": "polite" },
          h("div", { class: "empty", id: "empty" }, "Ask for a change, a fix or an explanation. Enter sends, Shift+Enter adds a line, Esc cancels."),
        ),
        h("form", { id: "composer", class: "composer", onsubmit: (e: Event) => { e.preventDefault(); void send(); } },
          h("textarea", { id: "prompt", rows: 3, placeholder: "Message Reasonix…", "aria-label": "Prompt", onkeydown: onPromptKey }),
          h("div", { class: "actions" },
            h("button", { id: "cancel", type: "button", class: "danger", hidden: true, onclick: () => void cancel() }, "Cancel (Esc)"),
            h("button", { id: "send", type: "submit", class: "primary" }, "Send"),
          ),
        ),
        h("div", { id: "usage", class: "usage" }),
      ),
      h("aside", { class: "todos", "aria-label": "Todo list" }, h("h2", {}, "Todo"), h("ul", { id: "todo-list" }, h("li", { class: "muted" }, "No tasks yet."))),
    ),
  );
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && state.current && state.busy.has(state.current)) {
      e.preventDefault();
      void cancel();
    }
  });
}

function setBanner(text: string | null, kind: "info" | "error" = "info"): void {
  const b = $("#banner");
  if (!b) return;
  b.hidden = !text;
  b.className = `banner ${kind}`;
  b.textContent = text ?? "";
}

// ---------- workspace trust ----------

/**
 * Asked once per content: a workspace whose project files would loosen the
 * user's protections shows what, and approves exactly the digests shown.
 */
async function checkTrust(): Promise<void> {
  let t: Json;
  try {
    t = await api("GET", "/api/trust");
  } catch {
    return;
  }
  const box = $("#trust");
  if (!box || t.trusted || !t.loosening?.length) return;
  const seen: Record<string, string> = {};
  for (const i of t.inputs as { rel: string; sha256: string }[]) seen[i.rel] = i.sha256;
  const key = `reasonix.trust-dismissed:${t.workspace}`;
  const fingerprint = JSON.stringify(seen);
  if (localStorage.getItem(key) === fingerprint) return;
  const err = h("p", { class: "error" });
  clear(box);
  box.append(
    h("h2", {}, "This workspace's files want to loosen your protections"),
    h("p", {}, "Until you trust their exact content these settings are ignored; any later change to the files asks again."),
    h("ul", {}, ...(t.loosening as Json[]).map((l) => h("li", {}, h("code", {}, `${l.key} = ${JSON.stringify(l.value)}`), h("span", { class: "muted" }, ` ${l.file}:${l.line}`)))),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "primary", id: "trust-approve", onclick: async () => {
        err.textContent = "";
        try {
          await api("POST", "/api/trust", { inputs: seen });
          box.hidden = true;
          await Promise.all([loadModels(), loadSessions()]);
        } catch (x) {
          err.textContent = (x as Error).message;
        }
      } }, "Trust these files"),
      h("button", { type: "button", id: "trust-dismiss", onclick: () => {
        localStorage.setItem(key, fingerprint);
        box.hidden = true;
      } }, "Keep ignoring"),
    ),
    err,
  );
  box.hidden = false;
}

// ---------- login & setup ----------

/** A centred one-form page (sign-in, provider setup): submit runs `action`, failures show under the form. */
function cardPage(id: string, action: () => Promise<void>, failure: (x: unknown) => string, ...children: Child[]): HTMLElement {
  const err = h("p", { class: "error", id: `${id}-error` });
  const app = $("#app");
  clear(app);
  app.append(
    h("div", { class: "card-page", id },
      h("form", {
        class: "card",
        onsubmit: async (e: Event) => {
          e.preventDefault();
          err.textContent = "";
          try {
            await action();
            await boot();
          } catch (x) {
            err.textContent = failure(x);
          }
        },
      }, ...children, err),
    ),
  );
  return err;
}

function showLogin(message?: string): void {
  const isPw = state.authMode === "password";
  const input = h("input", { id: "secret", type: "password", autocomplete: isPw ? "current-password" : "off", "aria-label": isPw ? "Password" : "Access token", required: true });
  const err = cardPage(
    "login",
    () => (isPw ? api("POST", "/login", { password: input.value }) : api("POST", "/auth/token", { token: input.value.trim() })).then(() => undefined),
    (x) => (x instanceof HttpError && x.status === 429 ? x.message : isPw ? "Wrong password." : "That token is not valid."),
    h("h1", {}, "Reasonix"),
    h("p", { class: "muted" }, isPw ? "Sign in with the server password." : "Paste the access token printed by reasonix serve (the part after #token=)."),
    input,
    h("button", { class: "primary wide", type: "submit" }, "Sign in"),
  );
  err.textContent = message ?? "";
  input.focus();
}

function showSetup(st: Json): void {
  const setup = st.setup ?? {};
  const key = h("input", { id: "api-key", type: "password", autocomplete: "off", "aria-label": "API key", required: true });
  cardPage(
    "setup",
    () => api("POST", "/api/setup/key", { provider: setup.provider, key: key.value }).then(() => undefined),
    (x) => (x as Error).message,
    h("h1", {}, "Provider setup"),
    h("p", {}, "The provider ", h("b", {}, String(setup.provider ?? "?")), " has no API key on this host yet."),
    setup.allowed
      ? h("p", { class: "muted" }, `The key is saved as ${setup.apiKeyEnv} in this host's Reasonix credential file (mode 0600), then the engine restarts in place.`)
      : h("p", { class: "error" }, `Key entry is disabled for listeners that are not on loopback. Set ${setup.apiKeyEnv} in the server's Reasonix .env and restart it.`),
    setup.allowed ? key : null,
    setup.allowed ? h("button", { class: "primary wide", type: "submit" }, "Save key") : null,
  );
  key.focus();
}

// ---------- live events ----------

let socket: WebSocket | null = null;
let source: EventSource | null = null;
let retryMs = 500;

function setConn(kind: typeof state.transport): void {
  state.transport = kind;
  const c = $("#conn");
  if (!c) return;
  c.className = `conn ${kind}`;
  c.textContent = kind === "offline" ? "offline" : "live";
  c.title = kind === "offline" ? "reconnecting…" : `live events over ${kind === "websocket" ? "WebSocket" : "SSE"}`;
}

function connect(): void {
  if (typeof WebSocket === "undefined") return connectSse();
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  let opened = false;
  const ws = new WebSocket(`${proto}//${location.host}/api/ws?since=${state.lastSeq}`);
  socket = ws;
  ws.onopen = () => {
    opened = true;
    retryMs = 500;
    setConn("websocket");
  };
  ws.onmessage = (m) => {
    // One envelope, or a burst of them as an array.
    const data = JSON.parse(String(m.data)) as Envelope | Envelope[];
    if (Array.isArray(data)) data.forEach(onEnvelope);
    else onEnvelope(data);
  };
  ws.onclose = () => {
    socket = null;
    setConn("offline");
    // Never opened: a proxy that cannot do WebSocket. Fall back to SSE for good.
    if (!opened) return connectSse();
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 10_000);
  };
}

function connectSse(): void {
  const es = new EventSource(`/api/events?since=${state.lastSeq}`);
  source = es;
  es.onopen = () => setConn("sse");
  es.onmessage = (m) => onEnvelope(JSON.parse(m.data) as Envelope);
  es.onerror = () => setConn("offline");
}

function onEnvelope(env: Envelope): void {
  if (env.seq <= state.lastSeq) return;
  state.lastSeq = env.seq;
  if (env.server) return onNotice(env.server);
  if (!env.sessionId || !env.event) return;
  const ev = env.event;
  if (ev.type === "turn_start") markBusy(env.sessionId, true);
  if (ev.type === "turn_end") markBusy(env.sessionId, false);
  if (env.sessionId === state.current && !state.loadingSession) renderEvent(ev, true);
}

function onNotice(n: Json): void {
  if (n.type === "busy") markBusy(n.sessionId, n.busy);
  else if (n.type === "sessions_changed") void loadSessions();
  else if (n.type === "engine_error") setBanner(`Engine error: ${n.message}`, "error");
  else if (n.type === "engine_ready") setBanner(null);
}

function markBusy(id: string, busy: boolean): void {
  if (busy) state.busy.add(id);
  else state.busy.delete(id);
  const row = document.querySelector(`[data-session="${CSS.escape(id)}"]`);
  row?.classList.toggle("busy", busy);
  if (id === state.current) updateComposer();
}

function updateComposer(): void {
  const busy = !!state.current && state.busy.has(state.current);
  $("#cancel").hidden = !busy;
  $<HTMLButtonElement>("#send").disabled = busy;
}

// ---------- transcript rendering ----------

interface AssistantBlock {
  root: HTMLElement;
  text: HTMLElement;
  textNode: Text;
  reasoning: HTMLElement | null;
  reasonNode: Text | null;
  textBuf: string;
  reasonBuf: string;
  /** Delta text not yet in the DOM: deltas are painted once per frame, not once per event. */
  pendingText: string;
  pendingReason: string;
}

let currentAssistant: AssistantBlock | null = null;
const toolCards = new Map<string, HTMLElement>();
const dirty = new Set<AssistantBlock>();
let flushScheduled = false;

function transcript(): HTMLElement {
  return $("#transcript");
}

function nearBottom(t: HTMLElement): boolean {
  return t.scrollHeight - t.scrollTop - t.clientHeight < 80;
}

function append(node: Node): void {
  const t = transcript();
  $("#empty")?.remove();
  const stick = nearBottom(t);
  t.append(node);
  if (stick) t.scrollTop = t.scrollHeight;
}

function flushDeltas(): void {
  flushScheduled = false;
  const t = transcript();
  if (!t) return dirty.clear();
  const stick = nearBottom(t);
  for (const a of dirty) {
    if (a.pendingText) a.textNode.appendData(a.pendingText);
    if (a.pendingReason && a.reasonNode) a.reasonNode.appendData(a.pendingReason);
    a.pendingText = "";
    a.pendingReason = "";
  }
  dirty.clear();
  if (stick) t.scrollTop = t.scrollHeight;
}

function scheduleFlush(a: AssistantBlock): void {
  dirty.add(a);
  if (flushScheduled) return;
  flushScheduled = true;
  requestAnimationFrame(flushDeltas);
}

/** Plain text with ``` fences as code blocks; everything goes through textContent. */
function renderText(el: HTMLElement, text: string): void {
  clear(el);
  const parts = text.split(/```/);
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      const body = part.replace(/^[\w+-]*\n/, "");
      el.append(h("pre", { class: "code" }, h("code", {}, body)));
    } else if (part) {
      el.append(h("span", {}, part));
    }
  });
}

function assistantBlock(): AssistantBlock {
  if (currentAssistant) return currentAssistant;
  const textNode = document.createTextNode("");
  const text = h("div", { class: "text" }, textNode);
  const root = h("div", { class: "msg assistant" }, h("div", { class: "who" }, "Reasonix"), text);
  append(root);
  currentAssistant = { root, text, textNode, reasoning: null, reasonNode: null, textBuf: "", reasonBuf: "", pendingText: "", pendingReason: "" };
  return currentAssistant;
}

function reasoningBlock(a: AssistantBlock): HTMLElement {
  if (a.reasoning) return a.reasoning;
  a.reasonNode = document.createTextNode("");
  const body = h("div", { class: "reasoning-body" }, a.reasonNode);
  const det = h("details", { class: "reasoning" }, h("summary", {}, "Thinking"), body);
  a.root.insertBefore(det, a.text);
  a.reasoning = body;
  return body;
}

function short(v: unknown, max = 400): string {
  const s = typeof v === "string" ? v : JSON.stringify(v, null, 2);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** A one-line hint of what a tool call touches (path, command, pattern). */
function inputHint(input: unknown): string {
  if (!input || typeof input !== "object") return "";
  const o = input as Json;
  for (const k of ["path", "command", "pattern", "from", "url"]) if (typeof o[k] === "string") return o[k].split("\n")[0]!.slice(0, 120);
  if (Array.isArray(o.todos)) return `${o.todos.length} item${o.todos.length === 1 ? "" : "s"}`;
  return "";
}

function toolCard(callId: string, name: string, input: unknown): HTMLElement {
  let card = toolCards.get(callId);
  if (card) return card;
  const hasInput = input !== undefined;
  card = h("div", { class: "tool", "data-call": callId },
    h("div", { class: "tool-head" },
      h("span", {}, h("span", { class: "tool-name" }, name), " ", h("span", { class: "tool-hint" }, inputHint(input))),
      h("span", { class: "tool-state" }, "running"),
    ),
    hasInput ? h("details", { class: "tool-input" }, h("summary", {}, "input"), h("pre", {}, short(input, 4000))) : null,
  );
  toolCards.set(callId, card);
  currentAssistant = null;
  append(card);
  return card;
}

function setToolState(card: HTMLElement, text: string, cls: string): void {
  const s = card.querySelector(".tool-state") as HTMLElement;
  s.textContent = text;
  s.className = `tool-state ${cls}`;
}

function system(text: string, cls = ""): void {
  currentAssistant = null;
  append(h("div", { class: `system ${cls}` }, text));
}

/** Blocks the current model attempt streamed into (dropped on attempt_discarded). */
const attemptBlocks = new Set<AssistantBlock>();

function renderEvent(ev: Json, live: boolean): void {
  switch (ev.type) {
    case "turn_start":
      currentAssistant = null;
      append(h("div", { class: "msg user" }, h("div", { class: "who" }, "You"), h("div", { class: "text" }, String(ev.prompt ?? ""))));
      break;
    case "reasoning_delta": {
      const a = assistantBlock();
      attemptBlocks.add(a);
      reasoningBlock(a);
      a.reasonBuf += ev.text;
      a.pendingReason += ev.text;
      scheduleFlush(a);
      break;
    }
    case "text_delta": {
      const a = assistantBlock();
      attemptBlocks.add(a);
      a.textBuf += ev.text;
      a.pendingText += ev.text;
      scheduleFlush(a);
      break;
    }
    case "assistant": {
      attemptBlocks.clear();
      const a = assistantBlock();
      dirty.delete(a);
      if (a.reasonNode) a.reasonNode.data = a.reasonBuf;
      if (ev.reasoning && !a.reasonBuf) reasoningBlock(a).textContent = ev.reasoning;
      a.pendingText = "";
      a.textBuf = String(ev.text ?? "");
      renderText(a.text, a.textBuf);
      if (!a.textBuf && !a.reasoning) a.root.remove();
      currentAssistant = null;
      break;
    }
    case "tool_call":
      toolCard(ev.callId, ev.name, ev.input);
      break;
    case "approval_request": {
      const card = toolCard(ev.callId, ev.name, ev.input);
      setToolState(card, "needs approval", "ask");
      // The user should see exactly what they are approving.
      card.querySelector("details.tool-input")?.setAttribute("open", "");
      const decide = (decision: string) => async () => {
        bar.querySelectorAll("button").forEach((b) => ((b as HTMLButtonElement).disabled = true));
        try {
          await api("POST", `/api/sessions/${encodeURIComponent(state.current!)}/approvals/${encodeURIComponent(ev.callId)}`, { decision });
        } catch (x) {
          bar.querySelectorAll("button").forEach((b) => ((b as HTMLButtonElement).disabled = false));
          system(`Could not send the decision: ${(x as Error).message}`, "error");
        }
      };
      const bar = h("div", { class: "approval" },
        h("div", { class: "summary" }, String(ev.summary ?? ev.name)),
        h("div", { class: "buttons" },
          h("button", { class: "primary", onclick: decide("once") }, "Allow once"),
          h("button", { onclick: decide("session"), title: ev.suggestedRule ? `adds the rule ${ev.suggestedRule} for this session` : undefined }, "Allow for session"),
          h("button", { class: "danger", onclick: decide("deny") }, "Deny"),
        ),
      );
      card.append(bar);
      if (live) (bar.querySelector("button") as HTMLButtonElement).focus();
      break;
    }
    case "approval_resolved": {
      const card = toolCards.get(ev.callId);
      if (!card) break;
      card.querySelector(".approval")?.remove();
      card.querySelector("details.tool-input")?.removeAttribute("open");
      setToolState(card, ev.decision === "deny" ? "denied" : `allowed (${ev.decision})`, ev.decision === "deny" ? "err" : "ok");
      break;
    }
    case "tool_result": {
      const card = toolCard(ev.callId, ev.name, undefined);
      card.querySelector(".approval")?.remove();
      setToolState(card, ev.ok ? "done" : "failed", ev.ok ? "ok" : "err");
      const out = String(ev.receipt || ev.output || "");
      if (out) {
        const pre = h("pre", { class: "tool-output" }, short(out, 4000));
        card.append(out.length > 300 ? h("details", {}, h("summary", {}, "output"), pre) : pre);
      }
      break;
    }
    case "todo":
      renderTodos(ev.items ?? []);
      break;
    case "usage": {
      const t = ev.total ?? {};
      $("#usage").textContent = `tokens in ${t.inputTokens ?? 0} · out ${t.outputTokens ?? 0} · cache hit ${Math.round(ev.cacheHitPercent ?? 0)}%`;
      break;
    }
    case "compaction":
      system(`Context compacted: ${ev.removedMessages} messages summarised.`);
      break;
    case "attempt_discarded":
      // The failed attempt's streamed text and reasoning are void: drop them.
      for (const a of attemptBlocks) {
        dirty.delete(a);
        a.root.remove();
        if (a === currentAssistant) currentAssistant = null;
      }
      attemptBlocks.clear();
      break;
    case "waiting":
      if (live) system(`Waiting for the model: nothing received for ${Math.round(ev.seconds)} s (gives up at ${ev.timeoutSeconds} s, ${ev.setting}).`, "warn");
      break;
    case "retry":
      system(`Provider retry ${ev.attempt} in ${Math.round(ev.delayMs / 1000)}s: ${ev.reason}`, "warn");
      break;
    case "turn_end":
      currentAssistant = null;
      if (ev.reason === "cancelled") system("Cancelled.", "warn");
      else if (ev.reason === "max_steps") system("Stopped: step limit reached.", "warn");
      else if (ev.reason === "denied") system("Stopped: permission denied.", "warn");
      else if (ev.reason === "error") system(`Error: ${ev.error ?? "turn failed"}`, "error");
      else if (ev.reason !== "done") system(`Stopped (${ev.reason}): ${ev.error ?? ""}`, "error");
      break;
    case "warning":
      system(`Warning: ${ev.message}`, "warn");
      break;
    case "error":
      system(`${ev.code}: ${ev.message}`, "error");
      break;
  }
}

function renderTodos(items: { content: string; status: string }[]): void {
  state.todos = items;
  const ul = $("#todo-list");
  clear(ul);
  if (!items.length) ul.append(h("li", { class: "muted" }, "No tasks yet."));
  for (const it of items) {
    const mark = it.status === "completed" ? "✓" : it.status === "in_progress" ? "▸" : "○";
    ul.append(h("li", { class: `todo ${it.status}` }, h("span", { class: "mark", "aria-hidden": "true" }, mark), h("span", {}, it.content)));
  }
}

// ---------- sessions ----------

async function loadSessions(): Promise<void> {
  try {
    const data = await api<{ sessions: SessionRow[] }>("GET", "/api/sessions");
    state.sessions = data.sessions;
  } catch {
    return;
  }
  for (const s of state.sessions) if (s.busy) state.busy.add(s.id);
  const ul = $("#session-list");
  if (!ul) return;
  clear(ul);
  if (!state.sessions.length) ul.append(h("li", { class: "muted" }, "No sessions yet."));
  for (const s of state.sessions) {
    const when = s.updatedAt ? new Date(s.updatedAt).toLocaleString() : "new";
    const li = h("li", { "data-session": s.id, class: `${s.id === state.current ? "active" : ""} ${state.busy.has(s.id) ? "busy" : ""}` },
      h("button", { class: "open", onclick: () => void openSession(s.id), title: `resume ${s.id}` },
        h("span", { class: "title" }, s.title || "Untitled session"),
        h("span", { class: "meta" }, `${when}${s.turns ? ` · ${s.turns} turns` : ""}`),
      ),
      h("button", { class: "delete", "aria-label": `delete session ${s.title || s.id}`, title: "delete", onclick: () => void deleteSession(s.id) }, "×"),
    );
    ul.append(li);
  }
}

function resetTranscript(): void {
  const t = transcript();
  clear(t);
  toolCards.clear();
  currentAssistant = null;
  renderTodos([]);
  $("#usage").textContent = "";
}

async function openSession(id: string, push = true): Promise<void> {
  state.current = id;
  state.loadingSession = true;
  resetTranscript();
  if (push) history.pushState(null, "", `/sessions/${encodeURIComponent(id)}`);
  try {
    const data = await api<{ events: Json[]; busy: boolean }>("POST", `/api/sessions/${encodeURIComponent(id)}/resume`);
    if (state.current !== id) return;
    for (const ev of data.events) renderEvent(ev, false);
    if (data.busy) state.busy.add(id);
    else state.busy.delete(id);
    if (!data.events.length) transcript().append(h("div", { class: "empty", id: "empty" }, "New session. Enter sends, Shift+Enter adds a line, Esc cancels."));
  } catch (x) {
    system(`Could not open the session: ${(x as Error).message}`, "error");
  } finally {
    state.loadingSession = false;
  }
  document.querySelectorAll("#session-list li").forEach((li) => li.classList.toggle("active", (li as HTMLElement).dataset.session === id));
  updateComposer();
  $("#prompt").focus();
}

async function newSession(): Promise<string | null> {
  try {
    const s = await api<{ id: string }>("POST", "/api/sessions", state.selectedModel ? { model: state.selectedModel } : {});
    await openSession(s.id);
    void loadSessions();
    return s.id;
  } catch (x) {
    setBanner(`Could not create a session: ${(x as Error).message}`, "error");
    return null;
  }
}

async function deleteSession(id: string): Promise<void> {
  const s = state.sessions.find((x) => x.id === id);
  if (!confirm(`Delete session "${s?.title || id}"? This cannot be undone.`)) return;
  try {
    await api("DELETE", `/api/sessions/${encodeURIComponent(id)}`);
  } catch (x) {
    setBanner(`Delete failed: ${(x as Error).message}`, "error");
  }
  if (state.current === id) {
    state.current = null;
    resetTranscript();
    history.pushState(null, "", "/");
  }
  await loadSessions();
}

async function send(): Promise<void> {
  const box = $<HTMLTextAreaElement>("#prompt");
  const prompt = box.value.trim();
  if (!prompt) return;
  if (state.current && state.busy.has(state.current)) return;
  const id = state.current ?? (await newSession());
  if (!id) return;
  box.value = "";
  state.busy.add(id);
  updateComposer();
  try {
    await api("POST", `/api/sessions/${encodeURIComponent(id)}/prompt`, { prompt });
  } catch (x) {
    state.busy.delete(id);
    updateComposer();
    box.value = prompt;
    system(`Not sent: ${(x as Error).message}`, "error");
  }
}

async function cancel(): Promise<void> {
  if (!state.current) return;
  try {
    await api("POST", `/api/sessions/${encodeURIComponent(state.current)}/cancel`);
  } catch (x) {
    system(`Cancel failed: ${(x as Error).message}`, "error");
  }
}

function onPromptKey(e: KeyboardEvent): void {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    void send();
  }
}

// ---------- models ----------

async function loadModels(): Promise<void> {
  try {
    const data = await api<{ selected: string | null; models: ModelRow[] }>("GET", "/api/models");
    state.models = data.models;
    state.selectedModel = data.selected;
  } catch {
    return;
  }
  const sel = $<HTMLSelectElement>("#model");
  clear(sel);
  if (!state.models.length) sel.append(h("option", { value: "" }, "no models"));
  for (const m of state.models) {
    sel.append(h("option", { value: m.name, selected: m.name === state.selectedModel }, `${m.name}${m.hasKey ? "" : " (no key)"}`));
  }
}

async function onModelChange(e: Event): Promise<void> {
  const name = (e.target as HTMLSelectElement).value;
  try {
    await api("POST", "/api/model", { name });
    state.selectedModel = name;
    setBanner(`New sessions use ${name}.`);
    setTimeout(() => setBanner(null), 2500);
  } catch (x) {
    setBanner(`Could not switch model: ${(x as Error).message}`, "error");
  }
}

// ---------- boot ----------

/** Exchange a `#token=` fragment for the session cookie, then wipe it from the address bar. */
async function exchangeFragmentToken(): Promise<string | null> {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!m) return null;
  history.replaceState(null, "", location.pathname + location.search);
  try {
    await api("POST", "/auth/token", { token: decodeURIComponent(m[1]!) });
    return null;
  } catch {
    return "The token in the link is not valid (the server may have restarted with a new one).";
  }
}

async function boot(): Promise<void> {
  let st: Json;
  try {
    st = await api("GET", "/api/status");
  } catch (x) {
    if (x instanceof HttpError && x.status === 401) return showLogin();
    document.body.textContent = `Cannot reach the server: ${(x as Error).message}`;
    return;
  }
  state.status = st;
  state.authMode = st.authMode;
  state.lastSeq = Math.max(state.lastSeq, Number(st.lastSeq ?? 0));
  if (st.setup?.required) return showSetup(st);
  renderShell();
  $("#workspace").textContent = st.workspace;
  if (!st.engine?.ready) setBanner(`Engine not ready: ${st.engine?.error ?? "unknown error"}`, "error");
  if (!socket && !source) connect();
  else setConn(state.transport);
  await Promise.all([loadModels(), loadSessions(), checkTrust()]);
  const m = /^\/sessions\/([^/]+)$/.exec(location.pathname);
  if (m) await openSession(decodeURIComponent(m[1]!), false);
  updateComposer();
  $("#prompt").focus();
}

window.addEventListener("popstate", () => {
  const m = /^\/sessions\/([^/]+)$/.exec(location.pathname);
  if (m) void openSession(decodeURIComponent(m[1]!), false);
});

void (async () => {
  const err = await exchangeFragmentToken();
  if (err) return showLogin(err);
  await boot();
})();
