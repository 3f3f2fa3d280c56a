import type { ToolRegistry } from "../registry.ts";
import { askTool } from "./ask.ts";
import { bashTool } from "./bash.ts";
import { bashKillTool, bashOutputTool } from "./bash-jobs.ts";
import { codeIndexTool } from "./code-index.ts";
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
import { completeStepTool, updateGoalTool } from "../../goal/tools.ts";

export const builtinTools = [
  readFileTool, writeFileTool, editFileTool, multiEditTool, moveFileTool,
  lsTool, globTool, grepTool, bashTool, bashOutputTool, bashKillTool, todoWriteTool, docsTool, webFetchTool, codeIndexTool,
  // In every session, also where no one can answer (the turn then ends as needs_user): the tool block never changes.
  askTool,
  // Goal mode's tools are in every session: the tool block stays the same when a goal starts (core/goal/tools.ts).
  updateGoalTool, completeStepTool,
] as const;

/** Register every built-in tool (read_file … todo_write). */
export function registerBuiltinTools(registry: ToolRegistry): void {
  for (const t of builtinTools) registry.register(t);
}
