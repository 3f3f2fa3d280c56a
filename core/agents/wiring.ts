/**
 * How the engine gives sessions subagents: each session's tool list (its
 * subset as a child, plus `task` while below max_subagent_depth), opening a
 * child session linked to its parent, `/profile task` in chat, and
 * `Engine.runSubagent` for `reasonix subagent try|run`.
 */
import type { CommandEntry } from "../commands/index.ts";
import type { EngineSession } from "../engine/types.ts";
import { instructionsBlock, scanInstructionFiles } from "../engine/instructions.ts";
import type { SessionFile } from "../sessions/store.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { runChild, type ApprovalRelay, type ChildOutcome, type ChildRequest } from "./child.ts";
import type { SubagentProgress } from "./events.ts";
import { agentLimits, childModel, type AgentLimits } from "./config.ts";
import { normalizeWritePaths } from "./paths.ts";
import { profileRequest, profileResultMessage } from "./profiles.ts";
import { AgentTree } from "./scheduler.ts";
import { taskTool } from "./task-tool.ts";
import { childTools, DELEGATION_TOOLS } from "./tools.ts";

/** The session that owns a `task` tool: its id and model, and where approvals surface. */
export type AgentOwner = ApprovalRelay & { id: string; model: string };

export interface WiringOptions {
  workspace: string;
  home: string;
  values: Record<string, unknown>;
  /** A new session log for `model` (a provider entry name, resolved: throws for an unknown one). */
  create(model: string): SessionFile;
  /** Open a session on its log; `child` set for a subagent. */
  open(file: SessionFile, model: string, child: ChildRequest): Promise<EngineSession>;
  /** The provider entry name `wanted` stands for (default model when undefined). */
  resolveModel(wanted: string | undefined): string;
}

export interface SessionAgents {
  /** The session's tools: a child's subset, plus `task` below the depth limit. */
  tools(base: ToolDefinition[]): ToolDefinition[];
  /** `/name task` for a subagent profile: runs it, returns the parent's message (task + answer). */
  runProfile(entry: CommandEntry, task: string, signal: AbortSignal): Promise<string>;
}

export interface AgentWiring {
  readonly limits: AgentLimits;
  forSession(s: { child?: ChildRequest; owner(): AgentOwner | undefined }): SessionAgents;
  /** A profile run straight from the CLI (no parent session). */
  runProfile(entry: CommandEntry, task: string, o: { readOnly: boolean; signal?: AbortSignal; onProgress?(p: SubagentProgress): void }): Promise<ChildOutcome>;
}

export function createAgentWiring(o: WiringOptions): AgentWiring {
  const limits = agentLimits(o.values);

  async function openChild(req: ChildRequest): Promise<EngineSession> {
    const model = o.resolveModel(childModel(o.values, { name: req.name, profileModel: req.profileModel, parentModel: req.parent?.model ?? o.resolveModel(undefined) }));
    const file = o.create(model);
    try {
      if (req.parent) {
        file.append({ t: "parent", id: req.parent.id, ...(req.parent.callId ? { callId: req.parent.callId } : {}), agent: req.name, depth: req.depth, readOnly: req.readOnly, at: new Date().toISOString() });
      }
      // The project's standing instructions apply to children too (the same preamble a session gets).
      const block = instructionsBlock(scanInstructionFiles(o.workspace, o.home).files);
      if (block) file.append({ t: "msg", turn: 0, msg: { role: "user", content: block } });
      return await o.open(file, model, req);
    } catch (e) {
      file.close();
      throw e;
    }
  }

  return {
    limits,
    forSession(s) {
      const depth = s.child?.depth ?? 0;
      const tree = s.child?.tree ?? new AgentTree(limits);
      const open = (req: ChildRequest) => openChild({ ...req, tree });
      return {
        tools(base) {
          const list = s.child
            ? childTools(base, { readOnly: s.child.readOnly, only: s.child.tools, writePaths: normalizeWritePaths(o.workspace, s.child.writePaths), workspace: o.workspace })
            : base.filter((t) => !DELEGATION_TOOLS.has(t.name));
          // Below the depth limit a session may delegate, unless its tool list (a profile's) leaves `task` out.
          const narrowed = !!s.child?.tools?.length && !s.child.tools.includes("task");
          if (depth >= limits.maxDepth || narrowed) return list;
          return [...list, taskTool({ open, tree, workspace: o.workspace, depth, forceReadOnly: !!s.child?.readOnly, owner: s.owner })];
        },
        async runProfile(entry, task, signal) {
          const owner = s.owner();
          if (depth >= limits.maxDepth) throw new Error(`subagents are off at this depth ([agent] max_subagent_depth = ${limits.maxDepth})`);
          const req = await profileRequest(entry, task, { readOnly: !!s.child?.readOnly, depth: depth + 1, ...(owner ? { parent: { id: owner.id, model: owner.model } } : {}) });
          const out = await runChild(req, { open, tree, workspace: o.workspace, signal, relay: owner });
          return profileResultMessage(entry.name, task, out);
        },
      };
    },
    async runProfile(entry, task, ro) {
      const tree = new AgentTree(limits);
      const req = await profileRequest(entry, task, { readOnly: ro.readOnly, depth: 1 });
      return runChild(req, { open: (r) => openChild({ ...r, tree }), tree, workspace: o.workspace, signal: ro.signal ?? new AbortController().signal, ...(ro.onProgress ? { report: ro.onProgress } : {}) });
    },
  };
}
