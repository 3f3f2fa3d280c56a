/**
 * `task`: the model hands a self-contained job to a child loop with its own
 * session, temp dir and tool subset. Only the task (this call's input) and
 * the child's final answer enter the parent conversation; the receipt names
 * the child's session. Several `task` calls of one round run in parallel
 * (the tool is marked `parallel`); the session tree's slots (scheduler.ts)
 * keep concurrency, writers and their declared write paths within limits.
 */
import type { ToolDefinition } from "../tools/types.ts";
import { runChild, type ApprovalRelay, type ChildRequest, type OpenChild } from "./child.ts";
import type { AgentTree } from "./scheduler.ts";

export interface TaskInput {
  description: string;
  prompt: string;
  read_only?: boolean;
  tools?: string[];
  write_paths?: string[];
}

export interface TaskToolOptions {
  open: OpenChild;
  tree: AgentTree;
  workspace: string;
  /** Depth of the session that owns this tool (root = 0). */
  depth: number;
  /** This session is itself a read-only child: its children are read-only too. */
  forceReadOnly: boolean;
  /** The owning session (for the parent link and approval relay), once it exists. */
  owner(): (ApprovalRelay & { id: string; model: string }) | undefined;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x.trim() !== "") : []);

export function taskTool(o: TaskToolOptions): ToolDefinition<TaskInput> {
  return {
    name: "task",
    description:
      "Delegate a self-contained job to a subagent: a fresh agent with its own context that sees only your prompt, works with its own tools, and returns only its final answer. Use it for research that would flood your context, or for independent pieces of work. Several task calls in one reply run in parallel. Set read_only for research (it then cannot change anything). A writing subagent should declare write_paths; writers run in parallel only when their write_paths do not overlap.",
    inputSchema: {
      type: "object",
      properties: {
        description: { type: "string", description: "a short name for the job (3-6 words), shown to the user" },
        prompt: { type: "string", description: "the complete task: everything the subagent needs to know, and what its answer must contain" },
        read_only: { type: "boolean", description: "research only: no writers, bash only for reading commands (default false)" },
        tools: { type: "array", items: { type: "string" }, description: "tool names the subagent may use (default: all it may have)" },
        write_paths: { type: "array", items: { type: "string" }, description: "files or folders (workspace-relative) the subagent will write; it may write nowhere else" },
      },
      required: ["description", "prompt"],
      additionalProperties: false,
    },
    kind: "meta",
    parallel: true,
    summarize: (i) => `task ${i?.read_only || o.forceReadOnly ? "(read-only) " : ""}${String(i?.description ?? "").slice(0, 80)}`,
    async run(input, ctx) {
      const prompt = typeof input?.prompt === "string" ? input.prompt : "";
      if (!prompt.trim()) return { ok: false, output: "task needs a non-empty prompt" };
      const owner = o.owner();
      const name = (typeof input.description === "string" && input.description.trim()) || "task";
      const req: ChildRequest = {
        name: name.slice(0, 60),
        task: prompt,
        readOnly: o.forceReadOnly || input.read_only === true,
        tools: strings(input.tools),
        writePaths: strings(input.write_paths),
        depth: o.depth + 1,
        ...(owner ? { parent: { id: owner.id, callId: ctx.callId, model: owner.model } } : {}),
      };
      const out = await runChild(req, {
        open: o.open,
        tree: o.tree,
        workspace: o.workspace,
        signal: ctx.signal,
        relay: owner,
        progress: (message) => ctx.emitProgress?.({ progress: 0, message }),
      });
      const receipt = `subagent "${req.name}"${req.readOnly ? " (read-only)" : ""}: session ${out.sessionId ?? "(none)"}, ${out.reason}`;
      if (out.ok) return { ok: true, output: out.answer, receipt };
      const why = out.answer || "the subagent ended without a final answer";
      return { ok: false, output: `The subagent did not finish (${out.reason}): ${why}`, receipt };
    },
  };
}
