// Engine events → what the full-screen chat shows: finished lines go to the
// scrollback through `commit`, unfinished state (streaming tail, reasoning,
// running tools, the pending approval) is drawn by `live()` on every frame.
import { truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import type { EngineEvent } from "../../core/engine/types.ts";
import { emptyTranscript, fold, type Step, type ToolBlock } from "../../core/protocol/fold.ts";
import { answerText } from "../../core/protocol/question.ts";
import type { PendingQuestion } from "./question.ts";
import { callSummary, cardLine, changeLines, decisionText, outputLines, savedWhere, type Paint, type PendingApproval } from "./cards.ts";
import { MarkdownStream, renderMarkdown } from "./markdown-stream.ts";
import { fullText } from "./pager.ts";
import { cleanText, scrub } from "./sanitize.ts";
import { goalEventLine } from "../../core/goal/format.ts";
import { guardianLine, guardianTone } from "../../core/guardian/format.ts";
import { subagentLine, subagentTone } from "../../core/agents/events.ts";
import { goalPromptLine, isGoalPrompt } from "../../core/goal/prompts.ts";

const WRITERS = new Set(["edit_file", "write_file", "multi_edit", "move_file"]);
/** Tools whose output is the result a reader wants to see (others say it in their receipt). */
const SHOWS_OUTPUT = new Set(["bash"]);

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
  /** The transcript so far (core/protocol/fold.ts): what is shown is rendered from its steps. */
  readonly t = emptyTranscript();
  readonly approvals: PendingApproval[] = [];
  /** The model's questions (`ask`) waiting for an answer, oldest first. */
  readonly questions: PendingQuestion[] = [];
  private notes: string[] = [];
  /** Ctrl-O / /verbose: reasoning and command output committed whole instead of folded. */
  verbose = false;

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

  /** Another session from here on (/new, /resume): the folded transcript starts over. */
  restart(): void {
    this.flushStream();
    Object.assign(this.t, emptyTranscript());
    this.approvals.length = 0;
    this.questions.length = 0;
  }

  /** A resumed conversation: its prompts come as turn_start events (live ones are echoed on send). */
  replay(events: readonly EngineEvent[]): void {
    for (const e of events) {
      if (e.type === "turn_start") this.prompt(e.prompt);
      this.event(e);
    }
  }

  info(lines: string[]): void {
    this.flushStream();
    this.commit(lines);
  }

  event(raw: EngineEvent): void {
    const e = scrub(raw);
    const s = fold(this.t, e);
    const w = this.width();
    switch (s.op) {
      case "text":
        this.notes = [];
        this.flushReasoning();
        this.commitLines(this.md.push(s.text, w));
        break;
      case "reasoning":
        this.reasoning += s.text;
        break;
      case "answer":
        // The step's full reasoning only when none of it was streamed (shown once).
        this.flushReasoning(s.reasoning);
        this.commitLines(this.md.started || this.mdPending() ? this.md.finish(w) : renderMarkdown(s.text, w));
        this.md.reset();
        break;
      case "discard":
        this.discardAttempt();
        break;
      case "tool":
        this.tool(s.block, s.event, w);
        break;
      case "notice":
        this.notice(s, w);
        break;
      case "end": {
        const b = s.block;
        this.flushStream();
        this.approvals.length = 0;
        this.questions.length = 0;
        this.notes = [];
        if (b.reason === "cancelled") this.commit([this.p.yellow("cancelled")]);
        else if (b.reason === "max_steps") this.commit([this.p.yellow("stopped: the turn reached [agent] max_steps; say \"continue\" to go on")]);
        else if (b.reason === "denied") this.commit([this.p.yellow("stopped: a permission was refused")]);
        else if (b.reason in ENDINGS) this.commit([this.p.yellow(ENDINGS[b.reason]!)]);
        else if (b.reason !== "done") this.commit([this.p.red(`turn ended: ${b.reason}${b.error ? ` — ${b.error}` : ""}`)]);
        break;
      }
      default:
        // turn_start is echoed by prompt(); session, usage and events from a newer engine show nothing here.
        break;
    }
  }

  private tool(b: ToolBlock, e: Extract<Step, { op: "tool" }>["event"], w: number): void {
    switch (e.type) {
      case "tool_call":
        this.flushStream();
        break;
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
      case "question_request":
        this.questions.push({ callId: e.callId, question: e.question, options: e.options, multi: e.multi, allowText: e.allowText });
        break;
      case "question_resolved": {
        const i = this.questions.findIndex((q) => q.callId === e.callId);
        const q = i >= 0 ? this.questions.splice(i, 1)[0] : undefined;
        const tone = "dismissed" in e.answer ? this.p.yellow : this.p.green;
        this.commit(wrapTextWithAnsi(`${tone("›")} ${q ? `${q.question} ` : ""}${this.p.bold(answerText(e.answer))}`, w));
        break;
      }
      case "tool_result": {
        const summary = b.input === undefined ? "" : callSummary(b.name, b.input);
        // The user's own `!command` says so (also when a resumed session shows it again).
        const lines = [cardLine(this.p, e.ok ? "ok" : "failed", b.name, summary, e.ok ? (b.user ? "you ran this" : e.receipt) : e.output.split("\n")[0], w)];
        if (e.ok && (WRITERS.has(b.name) || e.diff?.length)) lines.push(...changeLines(this.p, b.name, b.input, e.diff, w));
        if (!e.ok) lines.push(...outputLines(this.p, e.output.split("\n").slice(1).join("\n"), w, 4).filter((l) => l.trim()));
        // A command's output: its first lines and how many more (Ctrl-O and Ctrl-T show them all).
        else if (SHOWS_OUTPUT.has(b.name) && e.output.trim()) lines.push(...outputLines(this.p, e.output, w, this.verbose ? Infinity : 4));
        this.commit(lines);
        break;
      }
    }
  }

  private notice(s: Extract<Step, { op: "notice" }>, w: number): void {
    const e = s.block.event;
    switch (e.type) {
      case "todo":
        this.commit(e.items.map((i) => this.p.dim(`  ${i.status === "completed" ? "☑" : i.status === "in_progress" ? "▸" : "☐"} ${i.content}`)));
        break;
      case "compaction":
        this.info([this.p.dim(`compacted ${e.removedMessages} earlier messages into a summary`)]);
        break;
      case "retry":
        if (s.dropped) this.discardAttempt();
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
        if (s.asAnswer) break;
        this.flushStream();
        this.commit([this.p.dim(`plan from the planner (${e.route.replace("_", " ")}):`), ...e.text.split("\n")]);
        break;
      case "error":
        this.flushStream();
        this.commit([`${this.p.red("error:")} ${e.message}`]);
        break;
    }
  }

  /** The failed attempt's deltas: drop what is live; what already reached the scrollback gets a note. */
  private discardAttempt(): void {
    const committed = this.md.started;
    this.md.reset();
    this.reasoning = "";
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
    if (this.verbose) return this.commit([this.p.dim("── reasoning"), ...fullText(this.p, text, this.width())]);
    const first = text.split("\n")[0]!;
    this.commit([truncateToWidth(this.p.dim(`∴ ${first}${text.includes("\n") ? " …" : ""}  (${text.length} chars · Ctrl-O shows it)`), this.width(), "…")]);
  }

  private flushStream(): void {
    this.flushReasoning();
    this.commitLines(this.md.finish(this.width()));
  }

  live(width: number): string[] {
    const out: string[] = [];
    if (this.reasoning) {
      const lines = this.reasoning.trimEnd().split("\n").slice(-3);
      out.push(...lines.map((l) => truncateToWidth(this.p.dim(`∴ ${l}`), width, "…")));
    }
    out.push(...this.md.tail(width));
    for (const r of this.t.running.values()) {
      const summary = callSummary(r.name, r.input);
      if (this.approvals.some((a) => a.name === r.name && callSummary(a.name, a.input) === summary)) continue;
      if (this.questions.some((q) => q.callId === r.callId)) continue;
      out.push(cardLine(this.p, "running", r.name, summary, undefined, width));
    }
    out.push(...this.notes);
    return out;
  }
}
