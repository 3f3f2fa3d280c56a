// The terminal chat's approval prompt. Answering is a deliberate act: the
// composer keeps the focus and every key typed into it stays text; a choice
// is taken only from an empty composer, once the prompt has been on screen
// for a moment and the user has paused (↑↓ + Enter, or a digit that no other
// key follows at once). Nothing is preselected. The whole command or diff is
// reachable before deciding (PgUp/PgDn, Ctrl-O prints it above), and each
// "always" choice says which file it writes.
import { wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { homedir } from "node:os";
import type { ApprovalDecision, FileDiff } from "../../core/engine/types.ts";
import { diffLines, type Paint, type PendingApproval } from "./cards.ts";
import { t } from "../../core/protocol/i18n/index.ts";

import { ArmedCard, BURST_MS, DIGIT, ENTER } from "./arming.ts";
export { ARM_MS, BURST_MS } from "./arming.ts";

export interface Choice {
  decision: ApprovalDecision;
  text: string;
}

const tilde = (p: string) => {
  const h = homedir();
  return h && p.startsWith(`${h}/`) ? `~/${p.slice(h.length + 1)}` : p;
};

/** The answers offered, in order (digits 1…n). "Always" ones name the file they write. */
export function approvalChoices(a: PendingApproval): Choice[] {
  const out: Choice[] = [
    { decision: "once", text: t("approval.once") },
    { decision: "session", text: t("approval.session") },
  ];
  if (a.persistTo) {
    out.push({ decision: "persist", text: t("approval.persist", { path: tilde(a.persistTo.user.path) }) });
    out.push({ decision: "persist_project", text: t("approval.persistProject", { path: tilde(a.persistTo.project.path) }) });
  }
  out.push({ decision: "deny", text: t("approval.deny") });
  return out;
}

/** The rule the "allow" answers store, said once (a rule that is the whole command is not repeated). */
export function ruleLine(a: PendingApproval): string {
  const i = (a.input ?? {}) as Record<string, unknown>;
  const cmd = typeof i.command === "string" ? i.command.trim() : undefined;
  const rule = cmd !== undefined && a.suggestedRule === `Bash=${cmd}` ? t("approval.exactCommand") : a.suggestedRule;
  const user = a.persistTo?.user.rule;
  return t("approval.rule", { rule: `${rule}${user && user !== a.suggestedRule ? t("approval.savedAs", { rule: user }) : ""}` });
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Wrap LINE at WIDTH, never cutting it; continuation rows get INDENT (a wrapped command or diff line reads as one). */
function rewrap(line: string, width: number, indent: string): string[] {
  return wrapTextWithAnsi(line, Math.max(10, width - indent.length)).map((r, k) => (k === 0 ? r : indent + r));
}

/** The engine's diff with the file name and line numbers, every line (wrapped, never cut). */
export function numberedDiff(p: Paint, diffs: FileDiff[], width: number): string[] {
  const out: string[] = [];
  for (const d of diffs) {
    const name = d.kind === "move" && d.from ? `${d.from} → ${d.path}` : d.path;
    out.push(p.bold(`  ${d.kind} ${name} (+${d.added} −${d.removed})`));
    const last = d.hunks.at(-1);
    const numWidth = String(last ? Math.max(last.oldStart + last.oldLines, last.newStart + last.newLines) : 1).length;
    for (const h of d.hunks) {
      if (d.hunks.length > 1) out.push(p.dim(`  @@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`));
      let o = h.oldStart;
      let n = h.newStart;
      for (const l of h.lines) {
        const sign = l[0];
        const num = String(sign === "-" ? o : n).padStart(numWidth);
        const text = `  ${num} ${sign === "+" || sign === "-" ? sign : " "} ${l.slice(1)}`;
        const paint = sign === "+" ? p.green : sign === "-" ? p.red : p.dim;
        for (const row of rewrap(text, width, " ".repeat(numWidth + 5))) out.push(paint(row));
        if (sign !== "+") o++;
        if (sign !== "-") n++;
      }
    }
    if (d.truncated) out.push(p.dim("  … (the diff was cut short by the engine: the file is too large to show whole)"));
  }
  return out;
}

/** Everything the user should see before deciding: the whole command (with its description) or the whole change. */
export function approvalBody(p: Paint, a: PendingApproval, width: number): string[] {
  const i = (a.input ?? {}) as Record<string, unknown>;
  const out: string[] = [];
  if (a.name === "bash" && str(i.command) !== undefined) {
    const desc = str(i.description)?.trim();
    if (desc) out.push(...rewrap(p.dim(`  ${desc}`), width, "  "));
    const lines = str(i.command)!.replace(/\n+$/, "").split("\n");
    lines.forEach((l, k) => out.push(...rewrap(`  ${k === 0 ? "$" : ">"} ${l}`, width, "    ")));
  } else if (a.diff?.length) {
    out.push(...numberedDiff(p, a.diff, width));
  } else {
    out.push(...diffLines(p, a.name, a.input, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).flatMap((l) => rewrap(l, width, "    ")));
    // Any other tool (network, MCP…): its whole input, as the model sent it.
    if (out.length === 0 && a.input !== undefined && !(typeof a.input === "object" && a.input !== null && Object.keys(a.input).length === 0)) {
      for (const l of JSON.stringify(a.input, null, 2).split("\n")) out.push(...rewrap(p.dim(`  ${l}`), width, "    "));
    }
  }
  return out;
}

export interface KeyContext {
  composerEmpty: boolean;
  /** Give DATA to the composer as typed text. */
  feed(data: string): void;
  answer(decision: ApprovalDecision): void;
}

const UP = ["\x1b[A", "\x1bOA"];
const DOWN = ["\x1b[B", "\x1bOB"];
const PGUP = "\x1b[5~";
const PGDN = "\x1b[6~";

/** State of the prompt for the approval at the head of the queue. */
export class ApprovalPrompt extends ArmedCard<PendingApproval, KeyContext> {
  private selected: number | undefined;
  private scroll = 0;

  protected reset(): void {
    this.selected = undefined;
    this.scroll = 0;
  }

  protected take(data: string, a: PendingApproval, ctx: KeyContext, wasArmed: boolean): boolean {
    if (this.held) {
      clearTimeout(this.held.timer);
      const d = this.held.key;
      this.held = undefined;
      // Enter confirms the digit at once; any other key right after it: the digit was the start of text.
      if (ENTER.includes(data)) {
        ctx.answer(approvalChoices(a)[Number(d) - 1]!.decision);
        return true;
      }
      ctx.feed(d);
      return false;
    }
    if (data === PGUP || data === PGDN) {
      this.scroll = Math.max(0, this.scroll + (data === PGDN ? 1 : -1) * this.page);
      this.redraw();
      return true;
    }
    const early = this.notYet(data, ctx.composerEmpty, wasArmed);
    if (early !== undefined) return early;
    const choices = approvalChoices(a);
    if (UP.includes(data) || DOWN.includes(data)) {
      const n = choices.length;
      const cur = this.selected;
      this.selected = cur === undefined ? (DOWN.includes(data) ? 0 : n - 1) : (cur + (DOWN.includes(data) ? 1 : n - 1)) % n;
      this.redraw();
      return true;
    }
    if (ENTER.includes(data)) {
      if (this.selected !== undefined) ctx.answer(choices[this.selected]!.decision);
      return true;
    }
    if (DIGIT.test(data) && Number(data) <= choices.length) {
      const decision = choices[Number(data) - 1]!.decision;
      this.selected = Number(data) - 1;
      this.held = {
        key: data,
        timer: setTimeout(() => {
          this.held = undefined;
          if (this.arming.current === a.callId) ctx.answer(decision);
        }, BURST_MS),
      };
      this.redraw();
      return true;
    }
    return false;
  }

  private page = 5;

  /** The prompt's lines, at most MAXROWS when it can: header, the body (in a scrolling window when longer than the rows left), the choices, how to answer. */
  render(p: Paint, a: PendingApproval, width: number, maxRows: number, composerEmpty: boolean, more: number): string[] {
    this.sync(a);
    const what = a.name === "bash" ? "bash" : a.diff?.length ? `${a.name} ${a.diff.map((d) => d.path).join(", ")}` : a.summary;
    const head = rewrap(`${p.yellow("?")} ${p.bold(t("approval.allow"))} ${what}`, width, "  ");
    const choices = approvalChoices(a);
    const tail: string[] = [];
    tail.push(...rewrap(p.dim(ruleLine(a)), width, "    "));
    choices.forEach((c, k) => {
      const sel = this.selected === k;
      tail.push(...rewrap(`${sel ? p.cyan("›") : " "} ${k + 1}. ${sel ? p.bold(c.text) : c.text}`, width, "     "));
    });
    if (!composerEmpty) tail.push(p.dim(t("approval.keepText")));
    else if (this.armed()) tail.push(p.dim(t("approval.keys", { n: choices.length })));
    else tail.push(p.dim(t("approval.pause")));
    if (more > 0) tail.push(p.dim(t("approval.more", { n: more })));
    const body = approvalBody(p, a, width);
    const rows = Math.max(3, maxRows - head.length - tail.length - 1);
    const out = [...head];
    if (body.length <= rows) {
      this.scroll = 0;
      out.push(...body);
    } else {
      this.page = Math.max(1, rows - 1);
      this.scroll = Math.min(this.scroll, body.length - rows);
      out.push(...body.slice(this.scroll, this.scroll + rows));
      const end = this.scroll + rows;
      out.push(p.cyan(`  ── lines ${this.scroll + 1}–${end} of ${body.length}${end < body.length ? " · PgDn for more" : ""}${this.scroll > 0 ? " · PgUp back" : ""} · Ctrl-O prints it all above ──`));
    }
    return [...out, ...tail];
  }
}
