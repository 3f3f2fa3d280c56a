// `reasonix sessions show ID` as text: the saved session rendered from the one
// transcript fold every front end uses (core/protocol/fold.ts), so a failed
// attempt's text is gone and a continued answer is one answer, as in the chat.
// The model's question (the `ask` tool) reads as the chat shows it when the
// session is reopened: the question, then the answer (or "not answered").
import type { EngineEvent } from "../../core/protocol/events.ts";
import { askedQuestion, foldTranscript, type Block } from "../../core/protocol/fold.ts";
import { answerText } from "../../core/protocol/question.ts";
import { bold, dim, green, red, yellow } from "../output.ts";

type Asked = NonNullable<ReturnType<typeof askedQuestion>>;

function blockText(b: Block): string {
  switch (b.kind) {
    case "prompt":
      return `\n${bold(`[turn ${b.turn}]`)} ${b.text}\n`;
    case "answer":
      return `${b.reasoning.trim() ? `${dim(b.reasoning.trim())}\n` : ""}${b.text.trim() ? `${b.text.trim()}\n` : ""}`;
    case "tool": {
      const asked = askedQuestion(b);
      if (asked) return questionText(asked, b.output);
      const call = `${dim("•")} ${b.name} ${dim(JSON.stringify(b.input ?? {}).slice(0, 200))}\n`;
      if (b.output === undefined) return call;
      const ok = b.status === "ok";
      return `${call}  ${ok ? green("↳") : red("↳")} ${(b.receipt ?? b.output.split("\n")[0] ?? "").slice(0, 200)}\n`;
    }
    case "notice":
      if (b.event.type === "compaction") return dim(`(compacted ${b.event.removedMessages} messages)\n`);
      if (b.event.type === "warning") return `${yellow(`(warning: ${b.event.message})`)}\n`;
      return "";
    case "end":
      return b.reason === "done" ? "" : `${yellow(`(turn ended: ${b.reason}${b.error ? `: ${b.error}` : ""})`)}\n`;
  }
}

function questionText(asked: Asked, output: string | undefined): string {
  const head = `${yellow("?")} ${asked.question}${asked.options.length ? ` ${dim(`(${asked.options.join(" · ")})`)}` : ""}\n`;
  if (asked.answer) return `${head}  ${("dismissed" in asked.answer ? yellow : green)("›")} ${bold(answerText(asked.answer))}\n`;
  // Never answered: the tool's own result says why (a headless run cannot ask), when there is one.
  const why = output?.split("\n")[0]?.slice(0, 200);
  return `${head}  ${yellow("›")} ${bold("not answered")}${why ? ` ${dim(`(${why})`)}` : ""}\n`;
}

/** The conversation's prompts, answers, tool calls and notable notices, as `sessions show` prints them. */
export function sessionText(history: EngineEvent[]): string {
  return foldTranscript(history).blocks.map(blockText).join("");
}
