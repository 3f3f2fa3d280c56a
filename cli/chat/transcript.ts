// Engine events → what the full-screen chat shows: finished lines go to the
// scrollback through `commit`, unfinished state (streaming tail, reasoning,
// running tools, the pending approval) is drawn by `live()` on every frame.
import { truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import type { EngineEvent } from "../../core/engine/types.ts";
import { callSummary, cardLine, changeLines, decisionText, outputLines, savedWhere, type Paint, type PendingApproval } from "./cards.ts";
import { MarkdownStream, renderMarkdown } from "./markdown-stream.ts";
import { cleanText, scrub } from "./sanitize.ts";
import { goalEventLine } from "../../core/goal/format.ts";
import { guardianLine, guardianTone } from "../../core/guardian/format.ts";
import { subagentLine, subagentTone } from "../../core/agents/events.ts";
import { goalPromptLine, isGoalPrompt } from "../../core/goal/prompts.ts";

interface Running {
  name: string;
  input: unknown;
  summary: string;
}

const WRITERS = new Set(["edit_file", "write_file", "multi_edit", "move_file"]);

/** Turn endings that are not errors but stop short of an answer. */
const ENDINGS: Record<string, string> = {
  length: "stopped: the answer was cut off by the output limit (max_output_tokens)",
  content_filter: "stopped: the provider's content filter ended the answer",
  refusal: "stopped: the model declined to answer",
  empty: "stopped: the model's final answer was empty",
};

export class Transcript {
  private readonly md = new MarkdownStream();
  private reasoning = "";
  /** This step's reasoning is already in the scrollback (flushed when its text began). */
  private reasoningShown = false;
  private readonly running = new Map<string, Running>();
  readonly approvals: PendingApproval[] = [];
  /** Full text of the last collapsed item (reasoning or tool output), for Ctrl-O. */
  private expandable: { title: string; text: string } | undefined;
  private notes: string[] = [];

  constructor(
    private readonly p: Paint,
    private readonly commit: (lines: string[]) => void,
    private readonly width: () => number,
  ) {}

  /** Echo of the user's prompt into the scrollback. */
  prompt(raw: string): void {
    // A goal turn's long instructions stand as one line.
    if (isGoalPrompt(raw)) return this.commit(["", this.p.cyan(`› ${goalPromptLine(raw)}`)]);
    const text = cleanText(raw);
    const w = this.width();
    this.commit(["", ...text.split("\n").map((l, i) => truncateToWidth(`${i === 0 ? this.p.cyan("› ") : "  "}${l}`, w, "…")), ""]);
  }

  info(lines: string[]): void {
    this.flushStream();
    this.commit(lines);
  }

  event(raw: EngineEvent): void {
    const e = scrub(raw);
    const w = this.width();
    switch (e.type) {
      case "text_delta":
        this.notes = [];
        this.flushReasoning();
        this.commitLines(this.md.push(e.text, w));
        break;
      case "reasoning_delta":
        this.reasoning += e.text;
        break;
      case "assistant":
        // The step's full reasoning only when none of it was shown while streaming.
        this.flushReasoning(this.reasoningShown ? undefined : e.reasoning);
        this.reasoningShown = false;
        this.commitLines(this.md.started || this.mdPending() ? this.md.finish(w) : renderMarkdown(e.text, w));
        this.md.reset();
        break;
      case "tool_call": {
        this.flushStream();
        this.running.set(e.callId, { name: e.name, input: e.input, summary: callSummary(e.name, e.input) });
        break;
      }
      case "approval_request":
        this.approvals.push(e);
        break;
      case "approval_resolved": {
        const i = this.approvals.findIndex((a) => a.callId === e.callId);
        const a = i >= 0 ? this.approvals.splice(i, 1)[0] : undefined;
        const tone = e.decision === "deny" ? this.p.red : this.p.green;
        const saved = savedWhere(a, e.decision);
        this.commit([truncateToWidth(`${tone("›")} ${decisionText[e.decision]}: ${a?.summary ?? e.callId}`, w, "…"), ...(saved ? wrapTextWithAnsi(this.p.dim(`  ${saved}`), w) : [])]);
        break;
      }
      case "tool_result": {
        const r = this.running.get(e.callId) ?? { name: e.name, input: undefined, summary: "" };
        this.running.delete(e.callId);
        const lines = [cardLine(this.p, e.ok ? "ok" : "failed", r.name, r.summary, e.ok ? e.receipt : e.output.split("\n")[0], w)];
        if (e.ok && (WRITERS.has(r.name) || e.diff?.length)) lines.push(...changeLines(this.p, r.name, r.input, e.diff, w));
        if (!e.ok) lines.push(...outputLines(this.p, e.output.split("\n").slice(1).join("\n"), w, 4).filter((l) => l.trim()));
        if (e.output.trim()) this.expandable = { title: `${r.name} ${r.summary}`, text: e.output };
        this.commit(lines);
        break;
      }
      case "todo":
        this.commit(e.items.map((i) => this.p.dim(`  ${i.status === "completed" ? "☑" : i.status === "in_progress" ? "▸" : "☐"} ${i.content}`)));
        break;
      case "compaction":
        this.info([this.p.dim(`compacted ${e.removedMessages} earlier messages into a summary`)]);
        break;
      case "attempt_discarded":
        this.discardAttempt();
        break;
      case "retry":
        // Older engines send only `retry`: its deltas go the same way.
        this.discardAttempt();
        this.notes = [this.p.yellow(`retrying in ${Math.round(e.delayMs / 100) / 10}s (attempt ${e.attempt}): ${e.reason}`)];
        break;
      case "waiting":
        this.notes = [this.p.yellow(`no reply from the model for ${e.seconds}s (${e.phase === "first_byte" ? "waiting for the first byte" : "stalled"}; retried at ${e.timeoutSeconds}s, ${e.setting})`)];
        break;
      case "continuation":
        this.flushStream();
        this.commit([this.p.dim("(the answer reached the output limit; the model is asked to continue)")]);
        break;
      case "goal": {
        const line = goalEventLine(e);
        if (!line) break;
        this.flushStream();
        const paint = e.change === "complete" ? this.p.green : e.change === "paused" || e.change === "blocked" ? this.p.yellow : this.p.dim;
        this.commit(line.split("\n").map((l) => paint(l)));
        break;
      }
      case "warning":
        this.flushStream();
        this.commit([`${this.p.yellow("warning:")} ${e.message}`]);
        break;
      case "guardian":
        this.flushStream();
        this.commit([(guardianTone(e) === "warn" ? this.p.yellow : this.p.dim)(guardianLine(e))]);
        break;
      case "subagent":
        this.flushStream();
        this.commit([(subagentTone(e) === "warn" ? this.p.yellow : this.p.dim)(subagentLine(e))]);
        break;
      case "plan":
        // A plan-only answer already is the plan.
        if (e.route === "plan_only") break;
        this.flushStream();
        this.commit([this.p.dim(`plan from the planner (${e.route.replace("_", " ")}):`), ...e.text.split("\n")]);
        break;
      case "turn_end":
        this.flushStream();
        this.reasoningShown = false;
        this.running.clear();
        this.approvals.length = 0;
        this.notes = [];
        if (e.reason === "cancelled") this.commit([this.p.yellow("cancelled")]);
        else if (e.reason === "max_steps") this.commit([this.p.yellow("stopped: the turn reached [agent] max_steps; say \"continue\" to go on")]);
        else if (e.reason === "denied") this.commit([this.p.yellow("stopped: a permission was refused")]);
        else if (e.reason in ENDINGS) this.commit([this.p.yellow(ENDINGS[e.reason]!)]);
        else if (e.reason !== "done") this.commit([this.p.red(`turn ended: ${e.reason}${e.error ? ` — ${e.error}` : ""}`)]);
        break;
      case "error":
        this.flushStream();
        this.commit([`${this.p.red("error:")} ${e.message}`]);
        break;
      case "turn_start":
      case "session":
      case "usage":
        break;
      default:
        // Events from a newer engine are shown by nothing here, never fatal.
        break;
    }
  }

  /** The failed attempt's deltas: drop what is live; what already reached the scrollback gets a note. */
  private discardAttempt(): void {
    const committed = this.md.started;
    this.md.reset();
    this.reasoning = "";
    this.reasoningShown = false;
    if (committed) this.commit([this.p.yellow("↺ the partial answer above is discarded (that attempt failed)")]);
  }

  private mdPending(): boolean {
    return this.md.tail(this.width()).length > 0;
  }

  private commitLines(lines: string[]): void {
    if (lines.length) this.commit(lines);
  }

  private flushReasoning(final?: string): void {
    const text = (final ?? this.reasoning).trim();
    this.reasoning = "";
    if (!text) return;
    this.reasoningShown = true;
    this.expandable = { title: "reasoning", text };
    const first = text.split("\n")[0]!;
    this.commit([truncateToWidth(this.p.dim(`∴ ${first}${text.includes("\n") ? " …" : ""}  (${text.length} chars · Ctrl-O shows it)`), this.width(), "…")]);
  }

  private flushStream(): void {
    this.flushReasoning();
    this.commitLines(this.md.finish(this.width()));
  }

  /** Ctrl-O: print the last collapsed reasoning or tool output in full. */
  expandLast(): void {
    if (!this.expandable) return;
    const w = this.width();
    this.commit([this.p.dim(`── ${this.expandable.title}`), ...this.expandable.text.split("\n").map((l) => truncateToWidth(this.p.dim(l), w, "…"))]);
  }

  live(width: number): string[] {
    const out: string[] = [];
    if (this.reasoning) {
      const lines = this.reasoning.trimEnd().split("\n").slice(-3);
      out.push(...lines.map((l) => truncateToWidth(this.p.dim(`∴ ${l}`), width, "…")));
    }
    out.push(...this.md.tail(width));
    for (const r of this.running.values()) {
      if (this.approvals.some((a) => a.name === r.name && callSummary(a.name, a.input) === r.summary)) continue;
      out.push(cardLine(this.p, "running", r.name, r.summary, undefined, width));
    }
    out.push(...this.notes);
    return out;
  }
}
