/**
 * One catalog of everything a user can type as `/name`: each front end's own
 * built-ins, custom commands (Markdown prompt templates), skills and MCP
 * prompts. Every front end (terminal chat, web UI, ACP, `reasonix run`) reads
 * the same catalog; see core/commands/registry.ts for how names collide.
 * Types only, browser-safe (core/commands/types.ts re-exports them).
 */

export type CommandKind = "builtin" | "command" | "skill" | "mcp-prompt";
/** Where an entry comes from; the rank decides collisions (project > user > builtin). */
export type CommandScope = "builtin" | "user" | "project" | "mcp";

export interface SkillMeta {
  /** auto: listed to the model in the skill index; manual: only `/name` runs it. */
  invocation: "auto" | "manual";
  /** subagent: meant to run in its own context (a subagent profile: `/name task` runs it as a child, core/agents). */
  runAs: "inline" | "subagent";
  tools?: string[];
}

export interface ExpandContext {
  workspace: string;
  signal?: AbortSignal;
}

export interface CommandEntry {
  /** Without the slash: `review`, `git:commit`, `mcp__srv__prompt`. */
  name: string;
  description: string;
  argumentHint?: string;
  kind: CommandKind;
  scope: CommandScope;
  /** Human label of the origin: a file path, `chat`, `mcp:srv`. */
  source: string;
  path?: string;
  model?: string;
  allowedTools?: string[];
  skill?: SkillMeta;
  /**
   * Set when the entry is listed but may not run (e.g. "workspace not
   * trusted (reasonix trust)", a broken front matter). Such an entry never
   * shadows another one.
   */
  notLoaded?: string;
  /**
   * The user message `/name args` stands for. Absent for a front end's local
   * built-ins (`/new`, `/model`): the front end runs those itself.
   */
  expand?(args: string, ctx: ExpandContext): Promise<string> | string;
}

/**
 * Something that contributes entries: the file loaders, a front end's
 * built-ins, the MCP client's prompts. `list()` is called whenever the
 * catalog is built, so a source may change between calls.
 */
export interface CommandSource {
  /** Unique per registry, e.g. "custom", "skills", "chat", "mcp". */
  id: string;
  list(): CommandEntry[];
  /**
   * For a source whose list changes while the catalog is in use (MCP servers
   * coming up): a stamp that changes whenever list() would answer
   * differently, so the catalog is rebuilt then and only then.
   */
  stamp?(): string;
}

/** An entry that lost its name to another, for `doctor capabilities`. */
export interface Shadowed {
  entry: CommandEntry;
  by: CommandEntry;
  /** Still reachable under this name (`reasonix:<name>` for a built-in), if any. */
  reachableAs?: string;
}

export interface Catalog {
  /** The entries `/name` reaches, sorted by name (built-ins shadowed by a custom entry appear as `reasonix:<name>`). */
  entries: CommandEntry[];
  shadowed: Shadowed[];
  /** Listed but not loaded (untrusted, broken), with the reason in `notLoaded`. */
  notLoaded: CommandEntry[];
}
