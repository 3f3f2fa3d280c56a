import type { ToolRegistry } from "../registry.ts";
import { bashTool } from "./bash.ts";
import { docsTool } from "./docs.ts";
import { editFileTool, multiEditTool } from "./edit.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { lsTool } from "./ls.ts";
import { moveFileTool } from "./move.ts";
import { readFileTool } from "./read.ts";
import { todoWriteTool } from "./todo.ts";
import { webFetchTool } from "./web-fetch.ts";
import { writeFileTool } from "./write.ts";

export const builtinTools = [
  readFileTool, writeFileTool, editFileTool, multiEditTool, moveFileTool,
  lsTool, globTool, grepTool, bashTool, todoWriteTool, docsTool, webFetchTool,
] as const;

/** Register every built-in tool (read_file … todo_write). */
export function registerBuiltinTools(registry: ToolRegistry): void {
  for (const t of builtinTools) registry.register(t);
}
