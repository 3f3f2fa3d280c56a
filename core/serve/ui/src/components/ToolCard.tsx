// One tool call: what it does, its approval (with the diff it would make),
// its output (tail first, expandable) and the diff that landed.
import { useState } from "preact/hooks";
import { api, sessionPath } from "../api.ts";
import { changed, state } from "../store.ts";
import { addSystem, type Item } from "../transcript.ts";
import { pure } from "../pure.ts";
import { Diffs } from "./Diff.tsx";
import { QuestionCard } from "./QuestionCard.tsx";
import type { ApprovalDecision } from "../../../../protocol/modes.ts";
import { t as tr } from "../../../../protocol/i18n/index.ts";

type Tool = Extract<Item, { kind: "tool" }>;
type Json = Record<string, any>;

/** What the call is about, in one line: bash's description, a path, a pattern. */
export function toolHint(name: string, input: unknown): { title: string; detail: string } {
  const o = (input && typeof input === "object" ? input : {}) as Json;
  const first = (s: unknown) => (typeof s === "string" ? s.split("\n")[0]!.slice(0, 160) : "");
  if (name === "bash") return { title: first(o.description), detail: first(o.command) };
  if (name === "move_file") return { title: "", detail: `${first(o.source)} → ${first(o.destination)}` };
  for (const k of ["path", "pattern", "url", "query"]) if (typeof o[k] === "string") return { title: "", detail: first(o[k]) };
  if (Array.isArray(o.todos)) return { title: "", detail: `${o.todos.length} item${o.todos.length === 1 ? "" : "s"}` };
  return { title: "", detail: "" };
}

/** Each status's class; its label is web.tool.<status> in the interface language. */
const STATUS: Record<Tool["status"], string> = { running: "run", ask: "ask", allowed: "ok", ok: "ok", err: "err", denied: "err" };

const DECIDED: Record<string, string> = { persist: "always, in your config", persist_project: "always, in this project" };

const TAIL_LINES = 12;

/**
 * Listings whose output is context for the model rather than news for the
 * user (the todo list is in the side panel): folded until opened; a failure
 * shows. File contents (read_file) and command output keep their tail in view.
 */
const QUIET = new Set(["ls", "glob", "grep", "todo_write", "docs", "code_index"]);

function Folded({ text }: { text: string }) {
  const n = text.split("\n").length;
  return (
    <details class="tool-fold">
      <summary>output · {n} line{n === 1 ? "" : "s"}</summary>
      <Output text={text} />
    </details>
  );
}

function Output({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  const lines = text.split("\n");
  if (lines.length <= TAIL_LINES + 2 && text.length <= 2000) return <pre class="tool-output" tabIndex={0}>{text}</pre>;
  const tail = lines.slice(-TAIL_LINES).join("\n");
  return (
    <div class="tool-output-wrap">
      <pre class="tool-output" tabIndex={0}>{all ? text : tail.length > 4000 ? tail.slice(-4000) : tail}</pre>
      <button type="button" class="link" aria-expanded={all} onClick={() => setAll(!all)}>
        {all ? "Show the last lines only" : `Show full output (${lines.length} lines)`}
      </button>
    </div>
  );
}

/**
 * The answers to one approval. Nothing takes the focus when it arrives: the
 * composer keeps the keyboard and its text (a key meant for it must never
 * press a button here); answering is a click, or Tab to a button and Enter.
 * Each "always" button says which file it writes.
 */
function Approval({ t }: { t: Tool }) {
  const [sending, setSending] = useState(false);
  const decide = (decision: ApprovalDecision) => async () => {
    if (!state.current) return;
    setSending(true);
    try {
      await api("POST", `${sessionPath(state.current, "approvals")}/${encodeURIComponent(t.callId)}`, { decision });
    } catch (x) {
      setSending(false);
      addSystem(state.view, tr("web.decisionFailed", { error: (x as Error).message }), "error");
      changed();
    }
  };
  const req = t.request!;
  const to = req.persistTo;
  return (
    <div class="approval" role="group" aria-label={tr("web.approve", { summary: req.summary })}>
      <div class="summary">{req.summary}</div>
      <div class="buttons">
        <button type="button" class="primary" disabled={sending} onClick={decide("once")}>{tr("web.allowOnce")}</button>
        <button type="button" disabled={sending} onClick={decide("session")} title={req.suggestedRule ? `adds the rule ${req.suggestedRule} for this session` : undefined}>{tr("web.allowSession")}</button>
        {to ? <button type="button" disabled={sending} onClick={decide("persist")} aria-describedby={`persist-user-${t.callId}`}>{tr("web.alwaysUser")}</button> : null}
        {to ? <button type="button" disabled={sending} onClick={decide("persist_project")} aria-describedby={`persist-project-${t.callId}`}>{tr("web.alwaysProject")}</button> : null}
        <button type="button" class="danger" disabled={sending} onClick={decide("deny")}>{tr("web.deny")}</button>
      </div>
      {to ? (
        <ul class="persist-targets">
          <li id={`persist-user-${t.callId}`}>Your config: adds <code>{to.user.rule}</code> to <code>{to.user.path}</code> (every project)</li>
          <li id={`persist-project-${t.callId}`}>This project: adds <code>{to.project.rule}</code> to <code>{to.project.path}</code></li>
        </ul>
      ) : null}
    </div>
  );
}

function ToolCardImpl({ t }: { t: Tool; v: number }) {
  const hint = toolHint(t.name, t.input);
  const cls = STATUS[t.status];
  const label = tr(`web.tool.${t.status}`);
  const asking = t.status === "ask" && !!t.request;
  const questioning = t.status === "ask" && !!t.question;
  const proposed = t.request?.diff;
  const landed = t.diff;
  const out = t.receipt || t.output || "";
  return (
    <div class={`tool status-${t.status}${t.user ? " user-shell" : ""}`} data-call={t.callId}>
      <div class="tool-head">
        <span class="tool-id">
          {t.user ? <span class="tool-by" title="A command you ran: its output goes to the model with your next message">you ran</span> : null}
          <span class="tool-name">{t.name}</span>
          {hint.title ? <span class="tool-title"> {hint.title}</span> : null}
          {hint.detail ? <code class="tool-hint"> {hint.detail}</code> : null}
        </span>
        <span class={`tool-state ${cls}`}>{questioning ? "waiting for your answer" : t.decision && t.status === "allowed" ? `allowed (${DECIDED[t.decision] ?? t.decision})` : label}</span>
      </div>
      {asking && proposed?.length ? <Diffs diffs={proposed} /> : null}
      {questioning ? <QuestionCard t={t} /> : null}
      {t.input !== undefined && !(asking && proposed?.length) && !questioning ? (
        <details class="tool-input" open={asking}>
          <summary>input</summary>
          <pre tabIndex={0}>{typeof t.input === "string" ? t.input : JSON.stringify(t.input, null, 2)}</pre>
        </details>
      ) : null}
      {asking ? <Approval t={t} /> : null}
      {landed?.length && !asking ? <details class="tool-diff" open><summary>changes</summary><Diffs diffs={landed} /></details> : null}
      {out ? QUIET.has(t.name) && t.status === "ok" ? <Folded text={out} /> : <Output text={out} /> : null}
    </div>
  );
}

export const ToolCard = pure(ToolCardImpl);
