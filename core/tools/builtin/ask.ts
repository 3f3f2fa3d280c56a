/**
 * `ask`: the model asks the user a question with options to pick from (one
 * or several) and, when it allows, an answer in the user's own words. The
 * turn waits for the answer in every permission mode (it is not a
 * permission); a dismissed question says so. Where no one can answer
 * (headless `reasonix run`, `mcp serve`) the turn ends as needs_user.
 */
import { MAX_QUESTION_OPTIONS } from "../../protocol/question.ts";
import type { QuestionOption } from "../../protocol/events.ts";
import type { ToolDefinition } from "../types.ts";
import { done, fail, guarded, ToolInputError } from "./common.ts";

interface Input {
  question: string;
  options?: { label: string; description?: string }[];
  multi_select?: boolean;
  allow_text?: boolean;
}

function parse(input: Input): { question: string; options: QuestionOption[]; multi: boolean; allowText: boolean } {
  const question = typeof input?.question === "string" ? input.question.trim() : "";
  if (!question) throw new ToolInputError(`"question" must be non-empty text`);
  const raw = input.options ?? [];
  if (!Array.isArray(raw)) throw new ToolInputError(`"options" must be a list`);
  if (raw.length > MAX_QUESTION_OPTIONS) throw new ToolInputError(`at most ${MAX_QUESTION_OPTIONS} options`);
  const options = raw.map((o, i) => {
    const label = typeof o?.label === "string" ? o.label.trim() : "";
    if (!label) throw new ToolInputError(`options[${i}].label must be non-empty text`);
    const description = typeof o.description === "string" && o.description.trim() ? o.description.trim() : undefined;
    return description ? { label, description } : { label };
  });
  if (new Set(options.map((o) => o.label)).size !== options.length) throw new ToolInputError("option labels must differ");
  // A question without options can only be answered in words.
  const allowText = input.allow_text === true || options.length === 0;
  return { question, options, multi: input.multi_select === true && options.length > 0, allowText };
}

export const askTool: ToolDefinition<Input> = {
  name: "ask",
  description:
    "Ask the user a question and wait for the answer. Offer the likely answers as options (up to 9; multi_select lets the user pick several) and set allow_text to let them answer in their own words too. Use it when a decision is the user's (a choice between approaches, missing information), not for approval of actions. The result says what the user picked or wrote, or that they dismissed the question.",
  inputSchema: {
    type: "object",
    properties: {
      question: { type: "string", description: "The question, complete on its own" },
      options: {
        type: "array",
        maxItems: MAX_QUESTION_OPTIONS,
        items: {
          type: "object",
          properties: {
            label: { type: "string", description: "The choice as the user sees it (short)" },
            description: { type: "string", description: "What picking it means (optional)" },
          },
          required: ["label"],
          additionalProperties: false,
        },
      },
      multi_select: { type: "boolean", description: "The user may pick several options (default false)" },
      allow_text: { type: "boolean", description: "The user may write an answer of their own (default false; always so without options)" },
    },
    required: ["question"],
    additionalProperties: false,
  },
  kind: "meta",
  summarize: (i) => `ask: ${typeof i?.question === "string" ? i.question : ""}`,
  run: guarded(async (input, ctx) => {
    const q = parse(input);
    if (!ctx.askUser || !ctx.callId) return fail("error: no user can be asked here");
    const a = await ctx.askUser({ callId: ctx.callId, ...q });
    if ("dismissed" in a) {
      if (ctx.signal.aborted) return fail("cancelled");
      return done(a.reason ? `The question was not answered: ${a.reason}.` : "The user dismissed the question without answering.");
    }
    const lines: string[] = [];
    if (a.choices.length) lines.push(`The user chose: ${a.choices.join("; ")}`);
    if (a.text) lines.push(`The user wrote: ${a.text}`);
    return done(lines.join("\n"));
  }),
};
