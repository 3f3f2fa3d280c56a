/**
 * The `ask` tool's questions as every front end handles them: whether an
 * answer fits its question, and how a picked set of options is put together.
 * Browser-safe: the web UI checks its own form with the same rules the
 * engine enforces.
 */
import type { Question, QuestionAnswer } from "./events.ts";

/** Most options a question may offer (the terminal picks them with 1–9). */
export const MAX_QUESTION_OPTIONS = 9;
/** Longest free-text answer accepted. */
export const MAX_ANSWER_TEXT = 4000;

/** Why ANSWER does not fit Q, or undefined when it does. */
export function answerProblem(q: Pick<Question, "options" | "multi" | "allowText">, answer: QuestionAnswer): string | undefined {
  if ("dismissed" in answer) return answer.dismissed === true ? undefined : "dismissed must be true";
  if (!Array.isArray(answer.choices)) return "choices must be a list of option labels";
  const labels = q.options.map((o) => o.label);
  for (const c of answer.choices) if (typeof c !== "string" || !labels.includes(c)) return `${JSON.stringify(c)} is not one of the options (${labels.join(", ")})`;
  if (new Set(answer.choices).size !== answer.choices.length) return "an option was picked twice";
  if (!q.multi && answer.choices.length > 1) return "this question takes one choice";
  const text = answer.text;
  if (text !== undefined && typeof text !== "string") return "text must be a string";
  const written = (text ?? "").trim();
  if (written && !q.allowText) return "this question takes no text of your own";
  if (written.length > MAX_ANSWER_TEXT) return `the text is longer than ${MAX_ANSWER_TEXT} characters`;
  if (answer.choices.length === 0 && !written) return q.allowText ? "pick an option or write an answer" : "pick an option";
  return undefined;
}

/** The answer in the options' order, the text trimmed (absent when empty). */
export function normalAnswer(q: Pick<Question, "options">, answer: QuestionAnswer): QuestionAnswer {
  if ("dismissed" in answer) return answer;
  const choices = q.options.map((o) => o.label).filter((l) => answer.choices.includes(l));
  const text = answer.text?.trim();
  return text ? { choices, text } : { choices };
}

/** One line for people: what the user answered. */
export function answerText(answer: QuestionAnswer): string {
  if ("dismissed" in answer) return answer.reason ? `not answered: ${answer.reason}` : "dismissed";
  return [...answer.choices, ...(answer.text ? [`“${answer.text}”`] : [])].join(", ");
}
