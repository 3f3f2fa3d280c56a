/**
 * The model's question (engine `question_request`, the `ask` tool) → the
 * editor. A single-choice question is a `session/request_permission` with
 * one option per choice (kind allow_once) and a "Dismiss" option
 * (reject_once). Several choices or an own answer need a form: to an editor
 * that advertises `elicitation.form` it goes as `elicitation/create` (an
 * array of the labels, a text field); without it, a multiple-choice question
 * is asked as single choice and a question of words alone cannot be asked —
 * it is dismissed, saying why. Any failure to get an answer dismisses it.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { errorMessage } from "../errors.ts";
import type { EngineEvent, QuestionAnswer } from "../engine/types.ts";
import type { ElicitPort } from "./elicitation.ts";
import type { UpdateTranslator } from "./updates.ts";

type Request = Extract<EngineEvent, { type: "question_request" }>;

export interface QuestionPort {
  requestPermission(p: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
  elicit?: ElicitPort;
}

const DISMISS = "dismiss";
const optionId = (i: number) => `choice_${i + 1}`;

/** The permission-style request for Q: one option per choice, then Dismiss. */
export function questionPermission(sessionId: string, q: Request, tr: UpdateTranslator): acp.RequestPermissionRequest {
  const { sessionUpdate: _, ...toolCall } = tr.toolCall(q.callId, "ask", { question: q.question });
  return {
    sessionId,
    toolCall: { ...toolCall, title: q.question },
    options: [
      ...q.options.map((o, i): acp.PermissionOption => ({ optionId: optionId(i), name: o.description ? `${o.label} — ${o.description}` : o.label, kind: "allow_once" })),
      { optionId: DISMISS, name: "Dismiss (do not answer)", kind: "reject_once" },
    ],
  };
}

/** The form for a question that takes several choices or words. */
export function questionForm(sessionId: string, q: Request): acp.CreateElicitationRequest {
  const labels = q.options.map((o) => o.label);
  const properties: Record<string, unknown> = {};
  if (labels.length) properties.choices = q.multi ? { type: "array", title: "Choices", items: { type: "string", enum: labels } } : { type: "string", title: "Choice", enum: labels };
  if (q.allowText) properties.text = { type: "string", title: labels.length ? "Other (your own answer)" : "Your answer" };
  return { sessionId, toolCallId: q.callId, mode: "form", message: q.question, requestedSchema: { type: "object", properties } } as acp.CreateElicitationRequest;
}

async function viaPermission(sessionId: string, q: Request, port: QuestionPort, tr: UpdateTranslator, onError: (why: string) => void): Promise<QuestionAnswer> {
  const res = await port.requestPermission(questionPermission(sessionId, q, tr));
  const o = res?.outcome;
  if (o?.outcome !== "selected" || o.optionId === DISMISS) return { dismissed: true };
  const i = q.options.findIndex((_, k) => optionId(k) === o.optionId);
  if (i >= 0) return { choices: [q.options[i]!.label] };
  onError(`question answer names unknown option ${JSON.stringify(o.optionId)}; dismissing`);
  return { dismissed: true };
}

async function viaForm(sessionId: string, q: Request, elicit: ElicitPort): Promise<QuestionAnswer> {
  const res = await elicit(questionForm(sessionId, q));
  if (res?.action !== "accept") return { dismissed: true };
  const c = ((res as { content?: Record<string, unknown> | null }).content ?? {}) as { choices?: unknown; text?: unknown };
  const choices = Array.isArray(c.choices) ? c.choices.map(String) : typeof c.choices === "string" && c.choices ? [c.choices] : [];
  return typeof c.text === "string" && c.text.trim() ? { choices, text: c.text } : { choices };
}

/** Ask the editor's user; `answer` gets what they said (dismissed on any failure or misfit). */
export async function relayQuestion(sessionId: string, q: Request, port: QuestionPort, tr: UpdateTranslator, answer: (a: QuestionAnswer) => void, onError: (why: string) => void): Promise<void> {
  const form = q.multi || q.allowText;
  let a: QuestionAnswer;
  try {
    if (form && port.elicit) a = await viaForm(sessionId, q, port.elicit);
    else if (q.options.length) a = await viaPermission(sessionId, q, port, tr, onError);
    else a = { dismissed: true, reason: "this editor cannot take a written answer (it offers no input forms)" };
  } catch (e) {
    onError(`question request failed (${errorMessage(e)}); dismissing`);
    a = { dismissed: true };
  }
  try {
    answer(a);
  } catch (e) {
    // An answer that does not fit (the editor sent something else): dismissed, the log says why.
    onError(`question answer refused (${errorMessage(e)}); dismissing`);
    try {
      answer({ dismissed: true });
    } catch {
      // The turn ended meanwhile: nothing waits for it.
    }
  }
}
