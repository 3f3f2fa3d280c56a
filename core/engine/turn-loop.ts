/**
 * A turn's steps: send the conversation, stream the answer, run the tool
 * round it asks for, until the model answers without tools (or a limit,
 * a refusal, a denial or a cancel ends the turn).
 */
import { ProviderError } from "../providers/errors.ts";
import { chatWithRetry, type RetryHooks } from "../providers/retry.ts";
import type { ChatRequest, StreamHandlers } from "../providers/types.ts";
import { continueRequest, cutOffCalls, endMessage } from "./finish.ts";
import type { TurnEndReason } from "./types.ts";
import type { SessionCore } from "./session-core.ts";
import { recordUsage } from "./usage.ts";
import { maybeCompact } from "./session-compact.ts";
import { runRound } from "./tool-round.ts";
import { traceMark, traceStart, traceStep } from "../trace.ts";

/** The steps of the turn that runTurn (session.ts) started; how the turn ends. */
export async function runSteps(s: SessionCore, turn: number, signal: AbortSignal): Promise<TurnEndReason> {
  const checkpointed = new Set<string>();
  let lastPrompt: { tokens: number; messages: number } | undefined;
  let overflowCompacted = false;
  let continued = false;
  if (s.deps.toolSource) await s.syncTools(signal);
  for (let step = 1; ; step++) {
    if (signal.aborted) return over(s, "cancelled");
    s.takeSteers(turn);
    lastPrompt = (await maybeCompact(s, turn, signal, lastPrompt)).last;
    const req: ChatRequest = { system: s.deps.system, tools: s.schemas, messages: s.state.messages, ...(s.effort ? { reasoningEffort: s.effort } : {}) };
    const sentCount = req.messages.length;
    let result;
    const t0 = traceStart();
    const tally = t0 ? { deltas: 0, chars: 0, emitMs: 0 } : undefined;
    try {
      result = await chatWithRetry(s.provider, req, streamHandlers(s, tally), signal, s.deps.retry, retryHooks(s));
    } catch (e) {
      // The provider says the prompt is too long (context_window unset or
      // too high): compact once and try the same step again.
      if (overflowCompacted || !isContextOverflow(e)) throw e;
      overflowCompacted = true;
      if (!(await maybeCompact(s, turn, signal, undefined, true)).compacted) throw e;
      lastPrompt = undefined;
      step--;
      continue;
    } finally {
      // The model step: from the request to the complete answer; its deltas and the time spent handing them on.
      if (tally) traceStep("model:stream", t0, { deltas: tally.deltas, chars: tally.chars, emitMs: Number(tally.emitMs.toFixed(2)) });
    }
    recordUsage(s, turn, result.usage);
    lastPrompt = { tokens: result.usage.inputTokens + result.usage.outputTokens, messages: sentCount + 1 };
    const msg = result.message;
    s.partial = { text: "", reasoning: "" };
    s.commit({ t: "msg", turn, msg });
    s.emit({ type: "assistant", text: msg.content, ...(msg.reasoning ? { reasoning: msg.reasoning } : {}) });
    const calls = msg.toolCalls ?? [];
    const fr = result.finishReason;
    if (fr === "content_filter" || fr === "refusal") return ending(s, fr, result.outputLimit);
    if (calls.length === 0) {
      if (fr === "length") {
        // One continuation round per turn, and only for cut-off text.
        if (continued || !msg.content) return ending(s, "length", result.outputLimit);
        continued = true;
        const limit = result.outputLimit ? { outputLimit: result.outputLimit } : {};
        s.commit({ t: "msg", turn, msg: { role: "user", content: continueRequest(result.outputLimit) }, continuation: limit });
        s.emit({ type: "continuation", reason: "length", ...limit });
        continue;
      }
      // Guidance that arrived during this last step still belongs to this turn;
      // from this check on, guidance waits for the next turn (over()).
      if (s.steers.length > 0 && step < s.deps.maxSteps) continue;
      if (!msg.content.trim() && !continued) return ending(s, "empty");
      return over(s, "done");
    }
    const denied = await runRound(s, turn, calls, signal, checkpointed, cutOffCalls(result), result.outputLimit);
    if (signal.aborted) return over(s, "cancelled");
    if (s.needsUser !== undefined) {
      s.endError = `the model asked the user: "${s.needsUser}" — this run cannot ask; answer it in a chat (reasonix chat --resume ${s.id}) or put the answer in the prompt`;
      return over(s, "needs_user");
    }
    if (denied) return over(s, "denied");
    if (step >= s.deps.maxSteps) return over(s, "max_steps");
  }
}

/** What a traced model step counts (REASONIX_TRACE): deltas, their characters, and the time spent emitting them. */
export interface StreamTally {
  deltas: number;
  chars: number;
  emitMs: number;
}

export function streamHandlers(s: SessionCore, tally?: StreamTally): StreamHandlers {
  const h = plainHandlers(s);
  if (!tally) return h;
  const counted = (f: (text: string) => void) => (text: string) => {
    const t = performance.now();
    f(text);
    tally.emitMs += performance.now() - t;
    // The step's first piece is with the front end (time to first token; a test's reset waits for it).
    if (tally.deltas === 0) traceMark("model:first-delta");
    tally.deltas++;
    tally.chars += text.length;
  };
  return { ...h, onText: counted(h.onText!), onReasoning: counted(h.onReasoning!) };
}

function plainHandlers(s: SessionCore): StreamHandlers {
  return {
    onText: (text) => {
      s.streamed = true;
      s.partial.text += text;
      s.emit({ type: "text_delta", text });
    },
    onReasoning: (text) => {
      s.streamed = true;
      s.partial.reasoning += text;
      s.emit({ type: "reasoning_delta", text });
    },
    onWaiting: (n) => s.emit({ type: "waiting", ...n }),
  };
}

export function retryHooks(s: SessionCore): RetryHooks {
  s.streamed = false;
  s.partial = { text: "", reasoning: "" };
  return {
    onAttemptFailed: (n) => {
      if (s.abort?.signal.aborted) s.cutShort = s.partial.text;
      s.partial = { text: "", reasoning: "" };
      if (!s.streamed) return;
      s.streamed = false;
      s.emit({ type: "attempt_discarded", attempt: n.attempt, reason: n.reason });
    },
    onRetry: (n) => s.emit({ type: "retry", attempt: n.attempt, delayMs: n.delayMs, reason: n.reason }),
  };
}

/** End the turn on a finish reason that is not a usable answer; turn_end carries why. */
export function ending(s: SessionCore, reason: TurnEndReason, limit?: number): TurnEndReason {
  s.endError = endMessage(reason, s.provider.name, limit);
  return over(s, reason);
}

/**
 * The loop's last word on the turn: it reads no more guidance. Set in the same
 * synchronous step as its last check, so guidance steered while the turn is
 * finishing (its log still being synced) is told it waits for the next turn
 * (takesSteering) instead of being accepted for a turn that will not read it.
 */
function over(s: SessionCore, reason: TurnEndReason): TurnEndReason {
  s.steeringClosed = true;
  return reason;
}

/** A provider's "prompt too long" refusal, across vendors' wordings. */
export function isContextOverflow(e: unknown): boolean {
  if (!(e instanceof ProviderError) || e.kind !== "bad_request") return false;
  return /context[ _-]?(length|window)|too long|too many tokens|maximum.{0,40}tokens|prompt is too long|exceeds? the (context|model)/i.test(e.message);
}
