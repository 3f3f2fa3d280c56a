/**
 * The strict read-only tool registry: what a read-only subagent or the
 * planner may call. It must hold even when the model is told to write.
 *
 *   readOnlyTools(tools)                  → the filtered list (sorted by name)
 *   readOnlyTools(tools, { network: true }) → also keeps web_fetch-like tools
 *   readOnlyRegistry(registry)            → the same as a ToolRegistry
 *
 * Kept: tools of kind "read" (read_file, ls, glob, grep, docs, and MCP tools
 * whose server marked them `readOnlyHint: true` — the MCP adapter gives only
 * those kind "read"). `bash` is kept but wrapped: each command must pass the
 * read-only classifier (core/permissions/readonly-bash.ts) or the call is
 * refused before anything runs, and git runs without optional locks and
 * with every setting that runs a program neutral (readOnlyGitPrelude); the wrapper keeps kind "bash", so deny rules,
 * approvals and the OS sandbox still apply on top.
 * Dropped: writers (write/edit/move), meta tools (todo_write, run_skill,
 * task: a read-only child must not start writers), MCP tools without
 * `readOnlyHint` (kind "external") and, unless asked, network tools.
 */
import { classifyReadOnlyCommand } from "../permissions/readonly-bash.ts";
import { readOnlyGitPrelude } from "../policy/git-host.ts";
import { ToolRegistry } from "./registry.ts";
import type { ToolDefinition } from "./types.ts";

export { classifyReadOnlyCommand } from "../permissions/readonly-bash.ts";

export interface ReadOnlyOptions {
  /** Keep tools of kind "network" (web_fetch); they still ask per domain. Default false. */
  network?: boolean;
}

const READ_ONLY_BASH = Symbol("reasonix.readOnlyBash");

/** The given bash tool, refusing every command the read-only classifier does not accept. */
export function readOnlyBash(bash: ToolDefinition): ToolDefinition {
  if ((bash as { [READ_ONLY_BASH]?: boolean })[READ_ONLY_BASH]) return bash;
  const wrapped: ToolDefinition = {
    ...bash,
    description: `${bash.description} READ-ONLY: only commands that change nothing run (reading, listing, searching, git status/log/diff/show …), in the foreground, without redirections, variables or substitutions; anything else is refused.`,
    async run(input, ctx) {
      const command = typeof input?.command === "string" ? input.command : "";
      if (input?.run_in_background === true) return { ok: false, output: "Refused: this session is read-only and runs commands in the foreground only (no background jobs)." };
      const v = classifyReadOnlyCommand(command);
      if (!v.ok) {
        return {
          ok: false,
          output: `Refused: this session is read-only and \`${command.trim().slice(0, 200)}\` is not a read-only command: ${v.reason}. Use read_file, ls, glob or grep, or a plain reading command.`,
        };
      }
      // git takes optional locks even to read (`git status` refreshes and
      // rewrites .git/index), and obeys whatever config the repository has:
      // no optional locks, and every setting that runs a program neutral
      // (core/policy/git-host.ts). Set inside the command so it holds
      // wherever bash runs (here or an editor's terminal).
      return bash.run({ ...input, command: `${readOnlyGitPrelude()}\n${command}` }, ctx);
    },
  };
  Object.defineProperty(wrapped, READ_ONLY_BASH, { value: true });
  return wrapped;
}

/** Is this tool allowed, unchanged, in a strict read-only registry? (bash needs the wrapper.) */
export function isReadOnlyTool(tool: ToolDefinition, opts: ReadOnlyOptions = {}): boolean {
  return tool.kind === "read" || (opts.network === true && tool.kind === "network");
}

/** The strict read-only subset of `tools` (bash wrapped), sorted by name. */
export function readOnlyTools(tools: readonly ToolDefinition[], opts: ReadOnlyOptions = {}): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const t of tools) {
    if (t.kind === "bash") out.push(readOnlyBash(t));
    else if (isReadOnlyTool(t, opts)) out.push(t);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** readOnlyTools over a registry's tools, as a new registry. */
export function readOnlyRegistry(registry: ToolRegistry, opts: ReadOnlyOptions = {}): ToolRegistry {
  const r = new ToolRegistry();
  for (const t of readOnlyTools(registry.list(), opts)) r.register(t);
  return r;
}
