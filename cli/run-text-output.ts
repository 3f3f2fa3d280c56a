/**
 * `reasonix run --output-format text`: stdout carries exactly the committed
 * answer; everything else (reasoning, tool calls, retries, waiting notices)
 * goes to stderr.
 *
 * Piped stdout gets an answer only when the engine commits it (`assistant`),
 * so the text of a failed attempt never reaches a consumer. On a terminal
 * the deltas stream live and a discarded attempt is erased again.
 */
import type { EngineEvent } from "../core/engine/types.ts";
import { emptyTranscript, fold, type Step } from "../core/protocol/fold.ts";
import { dim, red, yellow } from "./output.ts";
import { goalEventLine } from "../core/goal/format.ts";
import { guardianLine, guardianTone } from "../core/guardian/format.ts";
import { subagentLine, subagentTone } from "../core/agents/events.ts";

interface Out {
  write(s: string): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

const width = (s: string): number => {
  const sw = (globalThis as { Bun?: { stringWidth?(s: string): number } }).Bun?.stringWidth;
  return sw ? sw(s) : s.length;
};

/** Terminal rows `text` takes when printed from column 0 on a `cols`-wide terminal. */
export function rowsOf(text: string, cols: number): number {
  let rows = 0;
  for (const line of text.split("\n")) rows += Math.max(1, Math.ceil(width(line) / Math.max(1, cols)));
  return rows;
}

const TURN_END_STOPS = new Set(["length", "content_filter", "refusal", "empty"]);

export class TextRunOutput {
  private readonly live: boolean;
  /** Live deltas of the current attempt already on the terminal. */
  private shown = "";
  /** The last committed answer did not end with a newline (written lazily: a continuation joins it). */
  private newlineOwed = false;
  private reasoningOpen = false;
  /** The transcript so far (core/protocol/fold.ts): output is rendered from its steps. */
  readonly t = emptyTranscript();

  constructor(
    private readonly out: Out = process.stdout,
    private readonly err: Out & NodeJS.WriteStream = process.stderr,
  ) {
    this.live = !!out.isTTY;
  }

  private stdout(text: string): void {
    if (!text) return;
    if (this.newlineOwed) this.out.write("\n");
    this.newlineOwed = false;
    this.out.write(text);
  }

  /** A stderr line: close an open reasoning line (and, on a terminal, the answer line) first. */
  private line(text: string): void {
    this.closeReasoning();
    if (this.live && this.newlineOwed) {
      this.out.write("\n");
      this.newlineOwed = false;
    }
    if (this.live && this.shown) {
      // A notice in the middle of a live answer (e.g. waiting): lift the
      // answer, print the line, put the answer back below it.
      const shown = this.shown;
      this.erase();
      this.err.write(`${text}\n`);
      this.out.write(shown);
      this.shown = shown;
      return;
    }
    this.err.write(`${text}\n`);
  }

  private closeReasoning(): void {
    if (this.reasoningOpen) this.err.write("\n");
    this.reasoningOpen = false;
  }

  /** Take the discarded attempt's live text off the terminal. */
  private erase(): void {
    const text = this.shown;
    this.shown = "";
    if (!text) return;
    const rows = rowsOf(text, this.out.columns ?? 80);
    if (rows <= (this.out.rows ?? 24) - 1) this.out.write(`\r${rows > 1 ? `\x1b[${rows - 1}A` : ""}\x1b[J`);
    else this.out.write("\n");
  }

  handle(e: EngineEvent): void {
    const s = fold(this.t, e);
    switch (s.op) {
      case "text":
        if (!this.live) break;
        this.closeReasoning();
        this.stdout(s.text);
        this.shown += s.text;
        break;
      case "reasoning":
        if (!s.text) break;
        this.err.write(dim(s.text, this.err));
        this.reasoningOpen = !s.text.endsWith("\n");
        break;
      case "answer": {
        this.closeReasoning();
        const text = s.text;
        if (this.live && this.shown && text.startsWith(this.shown)) this.out.write(text.slice(this.shown.length));
        else {
          if (this.live) this.erase();
          this.stdout(text);
        }
        this.shown = "";
        if (text) this.newlineOwed = !text.endsWith("\n");
        break;
      }
      case "discard":
        this.closeReasoning();
        if (this.live) this.erase();
        this.line(dim(`(discarded the partial answer of attempt ${s.event.attempt})`, this.err));
        break;
      case "tool":
        this.tool(s.event);
        break;
      case "notice":
        this.notice(s);
        break;
      case "end":
        if (TURN_END_STOPS.has(s.block.reason) && s.block.error) this.line(`${red("error:", this.err)} ${s.block.error}`);
        break;
    }
  }

  private tool(e: Extract<Step, { op: "tool" }>["event"]): void {
    const err = this.err;
    if (e.type === "tool_call") this.line(`${dim("•", err)} ${e.name} ${dim(JSON.stringify(e.input).slice(0, 160), err)}`);
    else if (e.type === "tool_result") {
      if (!e.ok) this.line(`${yellow("  ↳", err)} ${e.output.split("\n")[0]!.slice(0, 300)}`);
      else if (e.receipt) this.line(dim(`  ↳ ${e.receipt}`, err));
    }
  }

  private notice(s: Extract<Step, { op: "notice" }>): void {
    const err = this.err;
    const e = s.block.event;
    switch (e.type) {
      case "continuation":
        // The next answer continues this one on the same line.
        if (s.joins) this.newlineOwed = false;
        this.line(dim(`the answer hit the output limit${e.outputLimit ? ` (max_tokens ${e.outputLimit})` : ""}; asking the model to continue`, err));
        break;
      case "waiting":
        this.line(dim(`waiting for the model: nothing received for ${Math.round(e.seconds)} s${e.phase === "idle" ? " mid-answer" : ""} (gives up at ${e.timeoutSeconds} s, ${e.setting})`, err));
        break;
      case "retry":
        this.line(dim(`retrying in ${Math.round(e.delayMs / 100) / 10}s (attempt ${e.attempt}): ${e.reason}`, err));
        break;
      case "goal": {
        const text = goalEventLine(e);
        if (text) this.line(e.change === "paused" || e.change === "blocked" ? yellow(text, err) : dim(text, err));
        break;
      }
      case "compaction":
        this.line(dim(`compacted ${e.removedMessages} messages into a summary`, err));
        break;
      case "plan":
        // A plan-only answer already is the plan (stdout); otherwise it is shown as a status block.
        if (s.asAnswer) break;
        this.closeReasoning();
        this.line(dim(`plan from the planner (${e.route.replace("_", " ")}):`, err));
        for (const l of e.text.split("\n")) this.line(l);
        break;
      case "guardian":
        this.line(guardianTone(e) === "warn" ? yellow(guardianLine(e), err) : dim(guardianLine(e), err));
        break;
      case "subagent":
        this.line(subagentTone(e) === "warn" ? yellow(subagentLine(e), err) : dim(subagentLine(e), err));
        break;
      case "warning":
        this.line(`${yellow("warning:", err)} ${e.message}`);
        break;
      case "error":
        this.line(`${red("error:", err)} ${e.message}`);
        break;
    }
  }

  /** End of the run: the answer's last line gets its newline. */
  finish(): void {
    this.closeReasoning();
    if (this.newlineOwed) this.out.write("\n");
    this.newlineOwed = false;
  }
}
