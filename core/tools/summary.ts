/** The one-line summary of a tool call shown in approvals and Guardian messages. */
import type { ToolDefinition } from "./types.ts";

/**
 * Names the tool once: "write_file: write a.txt", but "bash: npm test" and
 * "grep \"x\" in src" where the tool's own summary already starts with its
 * name. A summarize() that throws leaves just the name.
 */
export function callSummary(tool: Pick<ToolDefinition, "name" | "summarize">, input: unknown): string {
  let text: string;
  try {
    text = String(tool.summarize(input)).trim();
  } catch {
    return tool.name;
  }
  if (!text) return tool.name;
  const named = text === tool.name || (text.startsWith(tool.name) && /^[\s:]/.test(text.slice(tool.name.length)));
  return named ? text : `${tool.name}: ${text}`;
}
