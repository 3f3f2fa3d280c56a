/**
 * The Guardian risk gate: in auto and yolo modes, a call the permission rules
 * would let through without a human, and that the pre-classifier finds risky,
 * is first judged by a separate reviewer model. The model returns a verdict;
 * the outcome comes from the fixed rule in verdict.ts. Anything short of a
 * valid verdict fails closed: an approval prompt, or a refusal when no one
 * can be asked.
 */
import { errorMessage } from "../errors.ts";
import { chatWithRetry, type RetryPolicy } from "../providers/retry.ts";
import type { Message, Provider } from "../providers/types.ts";
import type { PathPolicy } from "../policy/paths.ts";
import type { ToolDefinition } from "../tools/types.ts";
import type { GuardianReview, PermissionMode, Usage } from "../engine/types.ts";
import type { Prices } from "../providers/pricing.ts";
import { riskyBecause } from "./classify.ts";
import { GUARDIAN_SYSTEM, guardianMessage } from "./prompt.ts";
import { effectiveAuthorization, guardianOutcome, parseVerdict, type Verdict } from "./verdict.ts";

/** What the session does with a call after the Guardian. */
export type GuardDecision =
  | { action: "allow" }
  /** Not run; `reason` is the tool result the model reads, and the turn goes on. */
  | { action: "refuse"; reason: string }
  /** Not run, and the turn ends as denied (a headless run that cannot ask). */
  | { action: "deny"; reason: string }
  /** A human decides; `onApproved` runs when they approve. `note` joins the prompt's summary. */
  | { action: "ask"; note: string; onApproved?(): void };

export interface ReviewRequest {
  tool: ToolDefinition;
  input: unknown;
  /** "bash: rm -rf build" — for messages. */
  summary: string;
  messages: readonly Message[];
  signal: AbortSignal;
  /** A notice for the user (recorded, never sent to the model). */
  warn?(code: string, message: string): void;
  /** The reviewer's tokens, at its model's prices (the session records them as the guardian's spend). */
  spent?(usage: Usage, prices: Prices | undefined): void;
  /** The review's result, for the session log (a `guardian` record). */
  record?(review: Omit<GuardianReview, "callId" | "name" | "summary">): void;
}

/** What the session needs: one call. */
export interface GuardianHook {
  review(r: ReviewRequest): Promise<GuardDecision>;
}

export interface GuardianOptions {
  provider: Provider;
  /** Provider entry name, for messages. */
  modelName: string;
  timeoutMs: number;
  retry: RetryPolicy;
  workspace: string;
  pathPolicy?: PathPolicy;
  headless: boolean;
  /** The session's permission mode now (it can change mid-session). */
  mode(): PermissionMode;
}

/** Modes in which the Guardian stands in for the human. */
const GATED_MODES: ReadonlySet<PermissionMode> = new Set(["auto", "yolo"]);

export const fingerprint = (tool: string, input: unknown): string => `${tool}\u0000${stableJson(input)}`;

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

export class Guardian implements GuardianHook {
  /** Exact calls the user approved after the Guardian refused them (this session). */
  private readonly reapproved = new Set<string>();

  constructor(private readonly o: GuardianOptions) {}

  async review(r: ReviewRequest): Promise<GuardDecision> {
    const mode = this.o.mode();
    if (!GATED_MODES.has(mode)) return { action: "allow" };
    const why = riskyBecause(r.tool, r.input, { workspace: this.o.workspace, pathPolicy: this.o.pathPolicy });
    if (why === null) return { action: "allow" };
    const fp = fingerprint(r.tool.name, r.input);
    const reapproved = this.reapproved.has(fp);
    const got = await this.judge(r, { mode, why, reapproved });
    if (!got.ok) {
      if (r.signal.aborted) return { action: "deny", reason: "cancelled" };
      const cause = `the Guardian (${this.o.modelName}) could not review ${r.summary}: ${got.error}`;
      r.warn?.("guardian_unavailable", cause);
      r.record?.({ outcome: this.o.headless ? "deny" : "ask", reason: got.error, unavailable: true });
      if (this.o.headless) {
        return { action: "deny", reason: `permission denied: ${cause}. A headless run fails closed. Fix: check the [guardian] model entry and timeout_seconds, or run interactively to approve it yourself` };
      }
      return { action: "ask", note: `Guardian unavailable (${got.error}); approve only if you want this to run` };
    }
    const v = got.verdict;
    const auth = effectiveAuthorization(v, reapproved);
    const allowed = guardianOutcome(v.risk, auth) === "allow";
    // High risk without the user's authorization: the user may re-approve it (counts as high authorization).
    const asks = !allowed && v.risk === "high" && !this.o.headless;
    r.record?.({ outcome: allowed ? "allow" : asks ? "ask" : "deny", risk: v.risk, authorization: auth, reason: v.reason });
    if (allowed) return { action: "allow" };
    if (asks) {
      return {
        action: "ask",
        note: `Guardian: high risk, user authorization ${auth}: ${v.reason} (approving counts as your explicit authorization)`,
        onApproved: () => this.reapproved.add(fp),
      };
    }
    return { action: "refuse", reason: refusal(r.summary, v, auth) };
  }

  /** One bounded model call; never throws. */
  private async judge(r: ReviewRequest, a: { mode: string; why: string; reapproved: boolean }): Promise<{ ok: true; verdict: Verdict } | { ok: false; error: string }> {
    const timeout = AbortSignal.timeout(this.o.timeoutMs);
    const signal = AbortSignal.any([r.signal, timeout]);
    const content = guardianMessage(r.messages, { tool: r.tool.name, kind: r.tool.kind, summary: r.summary, input: r.input, workspace: this.o.workspace, mode: a.mode, reapproved: a.reapproved, why: a.why });
    try {
      const res = await chatWithRetry(this.o.provider, { system: GUARDIAN_SYSTEM, tools: [], messages: [{ role: "user", content }] }, {}, signal, this.o.retry);
      r.spent?.(res.usage, this.o.provider.prices);
      return parseVerdict(res.message.content);
    } catch (e) {
      if (timeout.aborted && !r.signal.aborted) return { ok: false, error: `no verdict within ${this.o.timeoutMs / 1000} s ([guardian] timeout_seconds)` };
      return { ok: false, error: errorMessage(e) };
    }
  }
}

function refusal(summary: string, v: Verdict, auth: string): string {
  return `refused by the Guardian: ${summary} was judged ${v.risk} risk (user authorization: ${auth}): ${v.reason}. It did not run. Do not retry it in another form; explain to the user what you need, and they can authorize it explicitly.`;
}
