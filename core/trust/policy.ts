// What a project's reasonix.toml may set. A cloned repository is untrusted
// input: until the user approves its exact content (`reasonix trust`), a
// project setting survives only when it tightens what the user configured.
// Some things stay the user's alone even in a trusted workspace: providers
// and keys, the remote/serve/secrets/trust sections, ssh_agent and
// env_passthrough. Every key not named here is dropped when untrusted (fail
// closed: a new setting must be classified before a repository can set it).
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { expandTilde, homePaths } from "../home.ts";
import { isTable } from "../config/validate.ts";
import { userOnlyKeys, userOnlySections } from "../config/schema.ts";
import { isWithin } from "../policy/paths.ts";
import { lineOfKey } from "./locate.ts";
import { agentLimits } from "../agents/config.ts";
import { bashOutputLimit, bashTimeoutCap, guardianTimeoutSeconds, maxOutputTokensOf, maxStepsOf } from "../config/limits.ts";
import { goalSettings } from "../goal/config.ts";
import { modeRank } from "../protocol/modes.ts";

type Table = Record<string, unknown>;

export interface IgnoredSetting {
  file: string;
  line: number;
  key: string;
  value: unknown;
  reason: string;
  /** True when approving the workspace (`reasonix trust`) would let it through. */
  trustable: boolean;
}

export interface RestrictInput {
  /** The parsed project file. */
  data: Table;
  /** Its text, to point warnings at lines. */
  text: string;
  file: string;
  /** Effective values before the project file: defaults < user config. */
  user: Table;
  /** The workspace's real path. */
  workspace: string;
  trusted: boolean;
  /** The user config's path, named in messages. */
  userConfig?: string;
}

export const UNTRUSTED = "workspace not trusted (reasonix trust)";
const userConfigOf = (ctx: RestrictInput) => ctx.userConfig ?? homePaths().config;


type Verdict = { keep: true; value?: unknown; dropped?: { key: string; value: unknown; reason: string }[] } | { keep: false; reason?: string; trustable?: boolean };
type Rule = (value: unknown, ctx: RestrictInput, userValue: unknown) => Verdict;

const keep: Verdict = { keep: true };
const untrusted: Verdict = { keep: false, reason: UNTRUSTED, trustable: true };
const always: Rule = () => keep;
const trustedOnly: Rule = (_v, ctx) => (ctx.trusted ? keep : untrusted);
const noLimitIfZero = (n: number) => (n === 0 ? Infinity : n);
/**
 * Limits a project may lower, never raise, each read the way the code that
 * enforces it reads it (Infinity = no limit): 0 means "no limit" for some and
 * out-of-range values fall back to the default for others, so comparing the
 * raw numbers would let `bash_timeout_seconds = 0` pass as a tightening.
 */
const LIMITS: Record<string, (values: Table) => number> = {
  "tools.bash_timeout_seconds": (v) => noLimitIfZero(bashTimeoutCap(v)),
  "tools.bash_output_limit": bashOutputLimit,
  "agent.max_steps": maxStepsOf,
  "agent.max_output_tokens": (v) => noLimitIfZero(maxOutputTokensOf(v)),
  "agent.goal_max_turns": (v) => noLimitIfZero(goalSettings(v).maxTurns),
  "agent.goal_token_budget": (v) => noLimitIfZero(goalSettings(v).tokenBudget),
  "agent.goal_evaluator_timeout_seconds": (v) => goalSettings(v).evaluatorTimeoutMs,
  "agent.max_subagent_depth": (v) => agentLimits(v).maxDepth,
  "agent.max_subagent_concurrency": (v) => agentLimits(v).maxConcurrency,
  "agent.max_parallel_writers": (v) => agentLimits(v).maxParallelWriters,
  "guardian.timeout_seconds": guardianTimeoutSeconds,
};
const lowerOnly = (key: string): Rule => {
  const read = LIMITS[key]!;
  const [section, name] = key.split(".") as [string, string];
  const effective = (value: unknown) => read({ [section]: { [name]: value } });
  return (v, ctx, u) => (ctx.trusted || effective(v) <= effective(u) ? keep : untrusted);
};

/** Resolve a project path setting to a real path; undefined when it cannot be judged safely. */
function realInside(raw: string, workspace: string): string | undefined {
  if (raw.includes("$")) return undefined; // ${VAR} expands differently later; not judged here
  const abs = isAbsolute(raw) ? raw : resolve(workspace, expandTilde(raw));
  let real = abs;
  try {
    if (existsSync(abs)) real = realpathSync(abs);
    else return undefined;
  } catch {
    return undefined;
  }
  return isWithin(real, workspace) ? real : undefined;
}

/**
 * Project MCP servers start only in a trusted workspace, and even then a
 * project cannot take a server out of the OS sandbox (`sandbox = false` is
 * the user's call alone): that field is dropped, the entry kept.
 */
const projectPlugins: Rule = (v, ctx) => {
  if (!ctx.trusted) return untrusted;
  const list = Array.isArray(v) ? v : [];
  const dropped: { key: string; value: unknown; reason: string }[] = [];
  const value = list.map((e) => {
    if (!isTable(e) || e.sandbox !== false) return e;
    dropped.push({ key: `plugins.sandbox (${String(e.name ?? "?")})`, value: false, reason: `only the user config (${userConfigOf(ctx)}) may run an MCP server outside the sandbox` });
    const { sandbox: _off, ...rest } = e;
    return rest;
  });
  return { keep: true, value, dropped };
};

const rules: Record<string, Rule> = {
  language: always,
  "agent.compact_ratio": always,
  "agent.reasoning_language": always,
  "agent.max_steps": lowerOnly("agent.max_steps"),
  "agent.max_output_tokens": lowerOnly("agent.max_output_tokens"),
  // Goal mode's bounds: a project may tighten them, never loosen.
  "agent.goal_max_turns": lowerOnly("agent.goal_max_turns"),
  "agent.goal_token_budget": lowerOnly("agent.goal_token_budget"),
  "agent.goal_evaluator_timeout_seconds": lowerOnly("agent.goal_evaluator_timeout_seconds"),
  // Subagent limits: a project may lower them (below the user's value, or the default when unset), never raise them.
  "agent.max_subagent_depth": lowerOnly("agent.max_subagent_depth"),
  "agent.max_subagent_concurrency": lowerOnly("agent.max_subagent_concurrency"),
  "agent.max_parallel_writers": lowerOnly("agent.max_parallel_writers"),
  "tools.bash_timeout_seconds": lowerOnly("tools.bash_timeout_seconds"),
  "tools.bash_output_limit": lowerOnly("tools.bash_output_limit"),
  // Narrowing is always allowed; the merge keeps only tools the user also enables.
  "tools.enabled": (v, _ctx, u) => {
    const theirs = Array.isArray(v) ? v : [];
    const mine = Array.isArray(u) ? u : [];
    if (mine.length === 0) return keep;
    const common = theirs.filter((t) => mine.includes(t));
    // An empty list means "all tools": never let an empty intersection widen the set.
    return common.length > 0 ? { keep: true, value: common } : { keep: false, reason: "it shares no tool with the user's tools.enabled", trustable: false };
  },
  "permissions.mode": (v, ctx, u) =>
    ctx.trusted || (modeRank(v) ?? 9) <= (modeRank(u ?? "ask") ?? modeRank("ask")!) ? keep : untrusted,
  "permissions.allow": trustedOnly,
  "permissions.ask": always,
  "permissions.deny": always,
  "sandbox.bash": (v, ctx) => (ctx.trusted || v === "enforce" ? keep : untrusted),
  "sandbox.network": (v, ctx) => (ctx.trusted || v === false ? keep : untrusted),
  "sandbox.forbid_read": always,
  "sandbox.workspace_root": (v, ctx) => {
    if (ctx.trusted) return keep;
    const real = typeof v === "string" ? realInside(v, ctx.workspace) : undefined;
    return real ? { keep: true, value: real } : { keep: false, reason: `${UNTRUSTED}; an untrusted project may only narrow it to an existing directory inside the workspace`, trustable: true };
  },
  // Inside the workspace an extra root adds nothing; outside it loosens.
  "sandbox.allow_write": (v, ctx) => {
    if (ctx.trusted) return keep;
    const list = Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
    return list.every((p) => realInside(p, ctx.workspace)) ? { keep: true, value: [] } : untrusted;
  },
  plugins: projectPlugins,
  "mcp.startup_grace_seconds": always,
  hooks: trustedOnly,
  "skills.paths": trustedOnly,
  "skills.excluded_paths": always,
  "skills.disabled_skills": always,
  // The Guardian only tightens: a project may turn it on, never off (its model is the user's: userOnlyKeys).
  "guardian.enabled": (v, _ctx, u) => (v === true || u !== true ? keep : { keep: false, reason: "a project may turn the Guardian on, never off", trustable: false }),
  "guardian.timeout_seconds": lowerOnly("guardian.timeout_seconds"),
};

function userProviderNames(user: Table): string[] {
  return Array.isArray(user.providers) ? user.providers.filter(isTable).map((p) => String(p.name ?? "")) : [];
}

const get = (t: Table, path: string[]): unknown => path.reduce<unknown>((v, k) => (isTable(v) ? v[k] : undefined), t);

/**
 * The part of a project file that may take effect, and what was dropped.
 * Lists are returned as the project gives them; the caller merges them with
 * the user's (union), never replacing.
 */
export function restrictProject(ctx: RestrictInput): { data: Table; ignored: IgnoredSetting[] } {
  const data: Table = {};
  const ignored: IgnoredSetting[] = [];
  const drop = (key: string, value: unknown, reason: string, trustable: boolean) =>
    ignored.push({ file: ctx.file, line: lineOfKey(ctx.text, key), key, value, reason, trustable });
  const put = (path: string[], value: unknown) => {
    let t = data;
    for (const p of path.slice(0, -1)) t = (t[p] ??= {}) as Table;
    t[path[path.length - 1]!] = value;
  };
  const judge = (path: string[], value: unknown) => {
    const key = path.join(".");
    if (userOnlySections.has(path[0]!) || userOnlyKeys.has(key)) return drop(key, value, `only the user config (${userConfigOf(ctx)}) may set it`, false);
    if (key === "providers") return drop(key, value, `providers come only from the user config (${userConfigOf(ctx)}); a project may pick one of them with default_model`, false);
    if (key === "default_model") {
      const name = String(value).split("/")[0]!;
      return userProviderNames(ctx.user).includes(name) ? put(path, value) : drop(key, value, "it names no provider of the user config", false);
    }
    const rule = rules[key];
    if (!rule) {
      if (isTable(value) && path.length === 1) {
        for (const [k, v] of Object.entries(value)) judge([...path, k], v);
        return;
      }
      // Unknown keys were already reported by validation; they never take effect.
      return;
    }
    const v = rule(value, ctx, get(ctx.user, path));
    if (v.keep) {
      put(path, "value" in v && v.value !== undefined ? v.value : value);
      for (const d of v.dropped ?? []) ignored.push({ file: ctx.file, line: lineOfKey(ctx.text, "plugins.sandbox"), key: d.key, value: d.value, reason: d.reason, trustable: false });
    }
    else drop(key, value, v.reason ?? UNTRUSTED, v.trustable ?? true);
  };
  for (const [k, v] of Object.entries(ctx.data)) judge([k], v);
  return { data, ignored };
}

export const formatIgnored = (i: IgnoredSetting): string => `${i.file}:${i.line || 1}: ${i.key} ignored: ${i.reason}`;
