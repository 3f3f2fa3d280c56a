import type { ToolDefinition } from "../types.ts";
import { done, guarded, ToolInputError } from "./common.ts";

type Status = "pending" | "in_progress" | "completed";
interface Item { content: string; status: Status }
interface Input { todos: Item[] }

const STATUSES: readonly Status[] = ["pending", "in_progress", "completed"];
const MARK: Record<Status, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };

function parseTodos(input: unknown): Item[] {
  const raw = (input as { todos?: unknown })?.todos;
  if (!Array.isArray(raw)) throw new ToolInputError(`"todos" must be a list`);
  return raw.map((t, i) => {
    const content = (t as { content?: unknown })?.content;
    const status = (t as { status?: unknown })?.status;
    if (typeof content !== "string" || content.trim() === "") throw new ToolInputError(`todos[${i}].content must be non-empty text`);
    if (!STATUSES.includes(status as Status)) throw new ToolInputError(`todos[${i}].status must be pending, in_progress or completed`);
    return { content: content.trim(), status: status as Status };
  });
}

export const todoWriteTool: ToolDefinition<Input> = {
  name: "todo_write",
  description:
    "Replace the session's task list (shown to the user). Send the whole list each time; mark one item in_progress while working on it and completed when done.",
  inputSchema: {
    type: "object",
    properties: {
      todos: {
        type: "array",
        items: {
          type: "object",
          properties: {
            content: { type: "string" },
            status: { type: "string", enum: [...STATUSES] },
          },
          required: ["content", "status"],
          additionalProperties: false,
        },
      },
    },
    required: ["todos"],
    additionalProperties: false,
  },
  kind: "meta",
  summarize: (i) => `update todo list (${Array.isArray(i?.todos) ? i.todos.length : 0} items)`,
  run: guarded(async (input, ctx) => {
    const items = parseTodos(input);
    ctx.emitTodo?.(items);
    const count = (s: Status) => items.filter((t) => t.status === s).length;
    const head = `Todo list updated: ${count("completed")} completed, ${count("in_progress")} in progress, ${count("pending")} pending.`;
    return done([head, ...items.map((t) => `${MARK[t.status]} ${t.content}`)].join("\n"));
  }),
};
