/**
 * MCP elicitation (a server asking the user for input mid-call) reaches the
 * user the way approvals do: an `elicitation_request` event, answered with
 * EngineSession.answerElicitation. It fails closed: a headless run, a front
 * end that never said it can show forms (offerElicitation), a cancelled turn
 * or an answer that does not fit the form all end in decline/cancel (or an
 * error to the front end), never in an accept nobody gave. Closing the
 * session cancels the turn, which cancels what is still waiting.
 */
import { ReasonixError } from "../errors.ts";
import type { ElicitAnswer, ElicitationAsk, EngineEvent } from "./types.ts";

type Request = Extract<EngineEvent, { type: "elicitation_request" }>;
type Value = string | number | boolean | string[];

interface Prop {
  type?: string;
  enum?: unknown[];
  oneOf?: { const?: unknown }[];
  items?: { enum?: unknown[]; anyOf?: { const?: unknown }[] };
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

export class ElicitationDesk {
  private readonly waiting = new Map<string, { request: Request; resolve(a: ElicitAnswer): void }>();
  private seq = 0;
  /** A front end that renders elicitation_request events is attached. */
  offered = false;

  constructor(private readonly o: { headless: boolean; emit(e: EngineEvent): void; warn(code: string, message: string): void }) {}

  /** Ask the user; resolves decline/cancel whenever no one can or does answer. */
  async ask(req: ElicitationAsk, signal: AbortSignal): Promise<ElicitAnswer> {
    const who = `MCP server "${req.server}" asked for input ("${req.message.slice(0, 120)}")`;
    if (this.o.headless || !this.offered) {
      this.o.warn("elicitation_declined", `${who}; declined: ${this.o.headless ? "this run cannot ask (headless)" : "this front end cannot show input forms"}`);
      return { action: "decline" };
    }
    if (signal.aborted) return { action: "cancel" };
    const id = `elicit-${++this.seq}`;
    const request: Request = { type: "elicitation_request", id, server: req.server, message: req.message, schema: req.schema, ...(req.callId ? { callId: req.callId } : {}) };
    const answer = await new Promise<ElicitAnswer>((resolve) => {
      const onAbort = () => resolve({ action: "cancel" });
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(id, { request, resolve: (a) => (signal.removeEventListener("abort", onAbort), resolve(a)) });
      this.o.emit(request);
    });
    this.waiting.delete(id);
    this.o.emit({ type: "elicitation_resolved", id, action: answer.action });
    return answer;
  }

  /** The front end's answer; an accepted form is checked against the schema (defaults filled in). */
  answer(id: string, a: ElicitAnswer): void {
    const w = this.waiting.get(id);
    if (!w) throw new ReasonixError("no_pending_elicitation", `no pending input request ${id}`);
    if (a.action === "accept") w.resolve({ action: "accept", content: checkForm(w.request.schema, a.content ?? {}) });
    else if (a.action === "decline" || a.action === "cancel") w.resolve({ action: a.action });
    else throw new ReasonixError("usage", `answer action must be accept, decline or cancel, not ${JSON.stringify((a as { action: unknown }).action)}`);
  }

  /** Unanswered requests, for history(). */
  pending(): Request[] {
    return [...this.waiting.values()].map((w) => w.request);
  }
}

/** The accepted values with defaults filled in; an error names the first field that does not fit. */
export function checkForm(schema: Record<string, unknown>, content: Record<string, unknown>): Record<string, Value> {
  const props = (schema.properties ?? {}) as Record<string, Prop>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: Record<string, Value> = {};
  for (const k of Object.keys(content)) if (!(k in props)) throw new ReasonixError("elicitation_invalid", `field "${k}" is not in the form`);
  for (const [k, p] of Object.entries(props)) {
    const v = content[k] ?? p.default;
    if (v === undefined || v === null || v === "") {
      if (required.has(k)) throw new ReasonixError("elicitation_invalid", `field "${k}" is required`);
      continue;
    }
    out[k] = checkValue(k, p, v);
  }
  return out;
}

function checkValue(k: string, p: Prop, v: unknown): Value {
  const bad = (why: string) => new ReasonixError("elicitation_invalid", `field "${k}": ${why}`);
  const allowed = p.enum ?? p.oneOf?.map((o) => o.const);
  switch (p.type) {
    case "boolean":
      if (typeof v !== "boolean") throw bad("must be true or false");
      return v;
    case "integer":
    case "number": {
      const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
      if (typeof n !== "number" || !Number.isFinite(n) || (p.type === "integer" && !Number.isInteger(n))) throw bad(`must be ${p.type === "integer" ? "a whole number" : "a number"}`);
      if (p.minimum !== undefined && n < p.minimum) throw bad(`must be at least ${p.minimum}`);
      if (p.maximum !== undefined && n > p.maximum) throw bad(`must be at most ${p.maximum}`);
      return n;
    }
    case "array": {
      const options = p.items?.enum ?? p.items?.anyOf?.map((o) => o.const);
      if (!Array.isArray(v) || v.some((x) => typeof x !== "string" || (options && !options.includes(x)))) throw bad(`must be a list of ${options ? options.join(", ") : "strings"}`);
      return v as string[];
    }
    default: {
      if (typeof v !== "string") throw bad("must be text");
      if (allowed && !allowed.includes(v)) throw bad(`must be one of ${allowed.join(", ")}`);
      if (p.minLength !== undefined && v.length < p.minLength) throw bad(`must be at least ${p.minLength} characters`);
      if (p.maxLength !== undefined && v.length > p.maxLength) throw bad(`must be at most ${p.maxLength} characters`);
      return v;
    }
  }
}
