// Tool calls as one-line cards, writer diffs and the inline approval prompt.
// Pure functions from engine data to display lines (colour through `paint`).
import { truncateToWidth } from "@mariozechner/pi-tui";
import type { ApprovalDecision, EngineEvent, FileDiff } from "../../core/engine/types.ts";

export interface Paint {
  dim(s: string): string;
  bold(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

export const plainPaint: Paint = { dim: (s) => s, bold: (s) => s, red: (s) => s, green: (s) => s, yellow: (s) => s, cyan: (s) => s };

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/** A short description of a call from its input: the path, command or pattern. */
export function callSummary(name: string, input: unknown): string {
  const i = (input ?? {}) as Record<string, unknown>;
  const path = str(i.path) ?? str(i.file_path);
  if (name === "bash") return oneLine(str(i.command) ?? "");
  if (name === "move_file") return `${str(i.from) ?? str(i.source) ?? "?"} → ${str(i.to) ?? str(i.destination) ?? "?"}`;
  if (name === "grep" || name === "glob") return `${str(i.pattern) ?? ""}${path ? ` in ${path}` : ""}`;
  if (name === "todo_write") return `${Array.isArray(i.todos) ? i.todos.length : 0} items`;
  if (path) return path;
  const first = Object.values(i).find((v) => typeof v === "string");
  return first ? oneLine(first as string) : "";
}

export type CardState = "running" | "ok" | "failed" | "waiting";

export function cardLine(p: Paint, state: CardState, name: string, summary: string, note: string | undefined, width: number): string {
  const mark = state === "ok" ? p.green("✓") : state === "failed" ? p.red("✗") : state === "waiting" ? p.yellow("?") : p.cyan("•");
  const tail = note ? p.dim(` · ${oneLine(note)}`) : "";
  return truncateToWidth(`${mark} ${p.bold(name)} ${summary}${tail}`, width, "…");
}

const MAX_DIFF = 12;

/** Lines of a writer's change, from the call's input (edit/write/multi_edit/move). */
export function diffLines(p: Paint, name: string, input: unknown, width: number, max = MAX_DIFF): string[] {
  const i = (input ?? {}) as Record<string, unknown>;
  const pairs: [string, string][] = [];
  if (name === "edit_file") pairs.push([str(i.old_string) ?? "", str(i.new_string) ?? ""]);
  else if (name === "multi_edit" && Array.isArray(i.edits)) for (const e of i.edits as Record<string, unknown>[]) pairs.push([str(e.old_string) ?? "", str(e.new_string) ?? ""]);
  else if (name === "write_file") pairs.push(["", str(i.content) ?? ""]);
  else return [];
  const out: string[] = [];
  for (const [a, b] of pairs) {
    const olds = a === "" ? [] : a.replace(/\n$/, "").split("\n");
    const news = b === "" ? [] : b.replace(/\n$/, "").split("\n");
    // Trim the lines both sides share so the change stands out.
    let s = 0;
    while (s < olds.length && s < news.length && olds[s] === news[s]) s++;
    let e = 0;
    while (e < olds.length - s && e < news.length - s && olds[olds.length - 1 - e] === news[news.length - 1 - e]) e++;
    for (const l of olds.slice(s, olds.length - e)) out.push(p.red(`  - ${l}`));
    for (const l of news.slice(s, news.length - e)) out.push(p.green(`  + ${l}`));
  }
  const shown = out.slice(0, max).map((l) => truncateToWidth(l, width, "…"));
  if (out.length > max) shown.push(p.dim(`  … ${out.length - max} more lines (Ctrl-O shows the full output)`));
  return shown;
}

/**
 * The engine's structured diff (the same the web UI shows): per file a header,
 * then the hunks with a line of context around each change.
 */
export function fileDiffLines(p: Paint, diffs: FileDiff[], width: number, max = MAX_DIFF): string[] {
  const out: string[] = [];
  for (const d of diffs) {
    const name = d.kind === "move" && d.from ? `${d.from} → ${d.path}` : d.path;
    if (diffs.length > 1 || d.kind === "move" || d.kind === "delete") out.push(p.dim(`  ${d.kind} ${name} (+${d.added} −${d.removed})`));
    for (const h of d.hunks) {
      if (out.length > 0 && d.hunks.length > 1) out.push(p.dim(`  @@ -${h.oldStart} +${h.newStart} @@`));
      for (const l of h.lines) {
        const body = l.slice(1);
        out.push(l[0] === "+" ? p.green(`  + ${body}`) : l[0] === "-" ? p.red(`  - ${body}`) : p.dim(`    ${body}`));
      }
    }
    if (d.truncated) out.push(p.dim("  … (diff cut short)"));
  }
  const shown = out.slice(0, max).map((l) => truncateToWidth(l, width, "…"));
  if (out.length > max) shown.push(p.dim(`  … ${out.length - max} more lines (Ctrl-O shows the full output)`));
  return shown;
}

/** Engine diff when the event carries one, else one made from the call's input. */
export const changeLines = (p: Paint, name: string, input: unknown, diff: FileDiff[] | undefined, width: number, max = MAX_DIFF): string[] =>
  diff && diff.length ? fileDiffLines(p, diff, width, max) : diffLines(p, name, input, width, max);

/** The first lines of a tool's output, indented, for failed calls and expanded views. */
export function outputLines(p: Paint, output: string, width: number, max: number): string[] {
  const lines = output.replace(/\n+$/, "").split("\n");
  const shown = lines.slice(0, max).map((l) => truncateToWidth(`  ${l}`, width, "…"));
  if (lines.length > max) shown.push(p.dim(`  … +${lines.length - max} lines (Ctrl-O shows them, Ctrl-T the transcript)`));
  return shown.map((l) => p.dim(l));
}

/** An approval_request still waiting for an answer. */
export type PendingApproval = Omit<Extract<EngineEvent, { type: "approval_request" }>, "type">;

export const decisionText: Record<ApprovalDecision, string> = {
  once: "allowed once",
  session: "allowed for this session",
  persist: "allowed always",
  persist_project: "allowed always in this project",
  deny: "denied",
};

/** Where an "always" answer saved its rule, for the line that records the answer. */
export function savedWhere(a: PendingApproval | undefined, d: ApprovalDecision): string | undefined {
  const t = d === "persist" ? a?.persistTo?.user : d === "persist_project" ? a?.persistTo?.project : undefined;
  return t ? `added ${t.rule} to ${t.path}` : undefined;
}

const WORDS: Record<string, ApprovalDecision> = { y: "once", yes: "once", a: "session", p: "persist", project: "persist_project", n: "deny", no: "deny" };
/** Line mode: a whole line answers (y, a, p, project, n). */
export const decisionForLine = (line: string): ApprovalDecision | undefined => WORDS[line.trim().toLowerCase()];
