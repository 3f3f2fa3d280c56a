/**
 * What the command registry, @references and hooks add to a session: the
 * `run_skill` tool, the step that turns a typed message into what the model
 * receives (`prepare`), the hooks, and the skill index for the first message.
 * Kept apart from engine.ts so the loop only sees small interfaces.
 */
import { expandCommand, parseSlash } from "../commands/expand.ts";
import type { CommandEntry } from "../commands/types.ts";
import { skillIndex, workspaceCommands, type CommandRegistry, type CommandSource } from "../commands/index.ts";
import { runSkillTool } from "../commands/skill-tool.ts";
import { turnModelFor, type TurnModel } from "../commands/turn-model.ts";
import { relToWorkspace } from "../trust/inputs.ts";
import { ReasonixError } from "../errors.ts";
import { HookRunner, loadHooks, type HookDef } from "../hooks/index.ts";
import type { PathPolicy } from "../policy/paths.ts";
import { readFileTool } from "../tools/builtin/read.ts";
import { inputTrusted, trustState } from "../trust/index.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { parseRule } from "../permissions/rules.ts";
import { createPermissionGate, type PermissionGate } from "./permission-gate.ts";
import { resolveReferences } from "./references.ts";
import { reasoningLanguageNote } from "./reasoning-language.ts";

export interface ExtensionOptions {
  workspace: string;
  home: string;
  values: Record<string, unknown>;
  sources?: Map<string, string>;
  pathPolicy: PathPolicy;
  gate?: PermissionGate;
  /** `--trust-project`: project files count as approved for this process. */
  trustAll?: boolean;
  /** More catalog entries, e.g. MCP prompts as `/mcp__<server>__<prompt>` (see CommandRegistry.registerSource). */
  commandSources?: CommandSource[];
  /** MCP resources for `@server:uri` (set by the MCP client when it has servers). */
  mcpResource?(server: string, uri: string, signal?: AbortSignal): Promise<string | undefined>;
  /** The configured provider entry names, for a command's `model:` (absent: the field is not honoured). */
  models?: string[];
  /** `/name task` of a subagent profile (core/agents): runs the child, returns the message for this conversation. */
  runProfile?(entry: CommandEntry, task: string, signal: AbortSignal): Promise<string>;
  /** Remembered facts for the typed message (core/memory/recall.ts): the block appended to the user message, "" for none. */
  recall?(message: string): { block: string };
}

export interface SessionExtensions {
  commands: CommandRegistry;
  hooks: HookRunner;
  hookDefs: HookDef[];
  /** run_skill when some skill may be loaded by the model. */
  tools: ToolDefinition[];
  /** The session's gate, plus the `allowed-tools` of the command that started the running turn. */
  gate?: PermissionGate;
  /** The typed message → the user message the model receives. */
  prepare(prompt: string, signal: AbortSignal): Promise<string>;
  /** The `model:` of the command that started the turn being prepared (core/commands/turn-model.ts). */
  turnModel(): TurnModel | undefined;
  /** Fire SessionStart (its context joins the first message that follows). */
  start(sessionId: string, source: "startup" | "resume"): Promise<void>;
}

/** The skill index for a new session's first message (null when there are no skills to list). */
export function skillIndexFor(commands: CommandRegistry): string | null {
  return skillIndex(commands.catalog().entries);
}

export function sessionExtensions(o: ExtensionOptions): SessionExtensions {
  const trust = trustState(o.workspace, o.values, !!o.trustAll);
  const commands = workspaceCommands({ workspace: o.workspace, home: o.home, values: o.values, trust });
  for (const src of o.commandSources ?? []) commands.registerSource(src);
  const hookDefs = loadHooks({ workspace: o.workspace, values: o.values, configSource: o.sources?.get("hooks"), trust });
  const hooks = new HookRunner(hookDefs, { workspace: o.workspace, config: o.values, policy: o.pathPolicy, home: o.home });
  let startContext: string[] = [];
  // `allowed-tools` of the command that started the current turn: they stand in
  // for the prompt (never for a deny rule or a mode's block) until the next message.
  let turnAllow: { rules: string[]; command: string } | undefined;
  let turnModel: TurnModel | undefined;
  const inner = o.gate;
  const gate: PermissionGate | undefined = inner && {
    check(tool, input) {
      const d = inner.check(tool, input);
      if (!turnAllow || !(d.action === "ask" || d.headlessAsk)) return d;
      const g = createPermissionGate({ mode: "ask", allow: turnAllow.rules, ask: [], deny: [], headless: false, workspace: o.workspace, pathPolicy: o.pathPolicy, projectConfigPath: "" });
      const c = g.check(tool, input);
      return c.action === "allow" ? { ...c, reason: `${c.reason} (allowed-tools of /${turnAllow.command})` } : d;
    },
    grant: (rule, scope) => inner.grant(rule, scope),
    ...(inner.persistTargets ? { persistTargets: (rule: string) => inner.persistTargets!(rule) } : {}),
    ...(inner.setMode ? { setMode: (m: Parameters<NonNullable<PermissionGate["setMode"]>>[0]) => inner.setMode!(m) } : {}),
  };
  const canRead = (abs: string): true | string => {
    const d = o.gate?.check(readFileTool, { path: abs });
    return d?.action === "deny" ? d.reason : true;
  };
  return {
    commands,
    hooks,
    hookDefs,
    tools: skillIndexFor(commands) ? [runSkillTool(commands, o.workspace)] : [],
    gate,
    async prepare(prompt, signal) {
      commands.invalidate();
      turnAllow = undefined;
      turnModel = undefined;
      const expanded = await expandCommand(commands, prompt, { workspace: o.workspace, signal });
      const rules = expanded.entry?.allowedTools ?? [];
      rules.forEach((r, i) => {
        try {
          parseRule(r);
        } catch (e) {
          throw new ReasonixError("command_allowed_tools", `${expanded.entry!.path ?? expanded.entry!.source}: allowed-tools[${i}] ${JSON.stringify(r)}: ${e instanceof Error ? e.message : String(e)}`);
        }
      });
      if (rules.length) turnAllow = { rules, command: expanded.entry!.name };
      if (o.models) turnModel = turnModelFor(expanded.entry, { models: o.models, trusted: (e) => !!e.path && inputTrusted(trust, relToWorkspace(o.workspace, e.path)) });
      // A subagent profile runs as a child; only the task and its answer join this conversation.
      if (expanded.entry?.skill?.runAs === "subagent" && o.runProfile) {
        expanded.content = await o.runProfile(expanded.entry, parseSlash(prompt)?.args ?? "", signal);
      }
      const refs = await resolveReferences(expanded.content, { workspace: o.workspace, policy: o.pathPolicy, canRead, mcpResource: o.mcpResource, signal });
      const hook = await hooks.run("UserPromptSubmit", { prompt }, { signal });
      if (hook.block) throw new ReasonixError("hook_blocked", `a UserPromptSubmit hook blocked this message: ${hook.block}`);
      const extra = [...startContext, ...hook.context];
      startContext = [];
      // Remembered facts ride at the end of the user message, never in the cached prefix.
      const memory = o.recall?.(prompt).block ?? "";
      const content = memory ? `${refs.content}\n\n${memory}` : refs.content;
      const hooked = extra.length ? `${content}\n\n<hook-context>\n${extra.join("\n")}\n</hook-context>` : content;
      // The reasoning language asked for (core/engine/reasoning-language.ts): last, after everything else.
      const lang = reasoningLanguageNote(o.values, process.env);
      return lang ? `${hooked}\n\n${lang}` : hooked;
    },
    turnModel: () => turnModel,
    async start(_sessionId, source) {
      const r = await hooks.run("SessionStart", { source });
      startContext.push(...r.context);
    },
  };
}
