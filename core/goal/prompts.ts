/**
 * The texts goal mode sends. Each goal turn's prompt is an ordinary user
 * message at the tail of the conversation, so the system prompt and the tool
 * block stay byte-identical (cache-stable prefix).
 */

const REPORT = [
  "End this turn by calling update_goal:",
  '- status "continue" with evidence of what this turn did and what is left;',
  '- status "complete" with evidence (what you ran or read that shows the objective is met) once it is done; list checks you could not run under completion.unverified;',
  '- status "blocked" with what you need from the user (a decision, access, information) when you cannot go on without them.',
].join("\n");

export function firstGoalPrompt(objective: string, note?: string): string {
  return [
    "[Goal mode] Work on this objective on your own, across as many turns as it needs, until it is done:",
    "",
    objective,
    "",
    "For multi-step work keep a todo list (todo_write) and sign steps off in order with complete_step, each with its evidence. Stop to ask only for an irreversible or externally visible step, a change of scope, or information only the user has.",
    ...(note ? ["", note] : []),
    "",
    REPORT,
  ].join("\n");
}

export function nextGoalPrompt(turn: number, note?: string): string {
  return [`[Goal mode] Continue with the goal (goal turn ${turn}). Pick up where the last turn stopped.`, ...(note ? ["", note] : []), "", REPORT].join("\n");
}

/** Asked once when a completion leaves checks unverified; the same list again finishes the goal. */
export function unverifiedNote(unverified: string[]): string {
  return [
    "Your completion report left these checks unverified:",
    ...unverified.map((u) => `- ${u}`),
    "Run them now if you can. If they truly cannot run here, report complete again with the same completion.unverified list.",
  ].join("\n");
}

/** The goal driver's label on what it says to the model itself (never worded as the user's). */
export const DRIVER_NOTE_LABEL = "[Goal mode: a note from the goal driver, not from the user]";

/** Injected at the tail (a user-role message, like steering but labelled as the driver's) after rounds without new progress. */
export function redirectMessage(rounds: number): string {
  return [
    `${DRIVER_NOTE_LABEL} The last ${rounds} rounds produced nothing new: the same calls with the same results, or failures.`,
    "Change strategy: re-read the objective and the todo list, question the assumption that keeps failing, try a different approach or a smaller step, or report update_goal blocked if you need the user.",
  ].join("\n");
}

export const BUDGET_SUMMARY_PROMPT = [
  "[Goal mode] The goal's token budget ([agent] goal_token_budget) is spent; the goal pauses after this answer.",
  "Do not call tools. Summarise for the user: what is done (with evidence), what is in progress, what is left, and the next step when the goal resumes.",
].join("\n");

export const EVALUATOR_SYSTEM = [
  "You judge one turn of an autonomous coding agent working toward a goal. The agent did not report its status, so you decide it from the transcript.",
  'Answer with one JSON object and nothing else: {"status": "continue" | "complete" | "blocked", "reason": "<one sentence>"}.',
  '"complete" only when the transcript shows evidence that the whole objective is met; "blocked" only when the agent cannot go on without the user; otherwise "continue".',
].join("\n");

export function evaluatorInput(objective: string, todos: string, transcript: string): string {
  return [`Objective:\n${objective}`, todos ? `Todo list:\n${todos}` : "Todo list: (none)", `Transcript of the turn:\n${transcript}`].join("\n\n");
}

/** A goal turn's prompt (front ends show it as one short line instead of the whole text). */
export const isGoalPrompt = (prompt: string): boolean => prompt.startsWith("[Goal mode]");

/** One line standing for a goal turn's prompt. */
export const goalPromptLine = (prompt: string): string => {
  const turn = /\(goal turn (\d+)\)/.exec(prompt);
  return turn ? `goal turn ${turn[1]}` : prompt.startsWith(BUDGET_SUMMARY_PROMPT) ? "goal: budget summary" : "goal turn 1";
};
