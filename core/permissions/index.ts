/**
 * Permission policy: decides, before a tool runs, whether the call is
 * allowed, needs a human, or is refused. Enforcement (write confinement, the
 * OS sandbox) lives elsewhere and applies even to allowed calls.
 *
 * Order: deny rules > mode blocks (plan, read-only) > ask rules > allow rules
 * (config + session/persisted grants) > the mode's fallback. A headless run
 * turns every "ask" into a "deny" whose reason names what would allow it.
 */
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { PermissionMode, PersistTargets } from "../engine/types.ts";
import { ReasonixError } from "../errors.ts";
import { expandTilde } from "../home.ts";
import { resolveReal, type PathPolicy } from "../policy/paths.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { analyzeBash, type BashAnalysis } from "./bash.ts";
import { HAZARD_TEXT } from "./bash-hazards.ts";
import { suggestBashRule } from "./suggest.ts";
import { persistRule, type PersistedEdit } from "./persist.ts";
import {
  bashPatternHitsAnywhere,
  bashPatternMatchesArgv,
  parseRule,
  pathPatternMatches,
  ruleNameCovers,
  type Rule,
} from "./rules.ts";

export { analyzeBash, type BashAnalysis, type BashHazard } from "./bash.ts";
export { parseRule, type Rule } from "./rules.ts";
export { persistRule } from "./persist.ts";
export { suggestBashRule } from "./suggest.ts";

import type { PermissionAction, PermissionDecision } from "../protocol/modes.ts";
export type { PermissionAction, PermissionDecision } from "../protocol/modes.ts";

export interface PermissionsOptions {
  mode: PermissionMode;
  allow: string[];
  ask: string[];
  deny: string[];
  /** No human to ask: "ask" becomes "deny" with a hint. */
  headless: boolean;
  /** Where "persist_project" grants go; default <workspace>/reasonix.toml. */
  projectConfigPath?: string;
  /** Where "persist" grants go (the user's config.toml); without it a "persist" grant fails with a reason. */
  userConfigPath?: string;
  /** Told about each edit a "persist" grant made (the engine re-approves the file's trust). */
  onPersist?: (edit: PersistedEdit) => void;
  /** Base for relative path rules; default process.cwd(). */
  workspace?: string;
  /** When given, writers aimed outside the write roots are refused up front with a precise hint. */
  pathPolicy?: PathPolicy;
}

const WRITE_FAMILIES = new Set(["Edit", "Write"]);
const PATH_FAMILIES = new Set(["Edit", "Write", "Read"]);

export class Permissions {
  private modeValue: PermissionMode;
  private readonly allow: Rule[];
  private readonly askRules: Rule[];
  private readonly deny: Rule[];
  private readonly sessionAllow: Rule[] = [];
  readonly headless: boolean;
  readonly workspace: string;
  readonly projectConfigPath: string;
  readonly userConfigPath?: string;
  private readonly pathPolicy?: PathPolicy;
  private readonly onPersist?: (edit: PersistedEdit) => void;

  /** Throws a ReasonixError (code "permissions-rule") naming the first malformed rule. */
  constructor(opts: PermissionsOptions) {
    this.modeValue = opts.mode;
    this.allow = opts.allow.map(parseRule);
    this.askRules = opts.ask.map(parseRule);
    this.deny = opts.deny.map(parseRule);
    this.headless = opts.headless;
    this.workspace = opts.workspace ?? opts.pathPolicy?.workspaceRoot ?? process.cwd();
    this.projectConfigPath = opts.projectConfigPath ?? join(this.workspace, "reasonix.toml");
    this.userConfigPath = opts.userConfigPath;
    this.pathPolicy = opts.pathPolicy;
    this.onPersist = opts.onPersist;
  }

  get mode(): PermissionMode {
    return this.modeValue;
  }

  /** Switch mode, e.g. from "plan" to "ask" once the user approved the plan. */
  setMode(mode: PermissionMode): void {
    this.modeValue = mode;
  }

  /** Rules currently in force, for display. */
  rules(): { allow: string[]; ask: string[]; deny: string[]; session: string[] } {
    const src = (rs: Rule[]) => rs.map((r) => r.source);
    return { allow: src(this.allow), ask: src(this.askRules), deny: src(this.deny), session: src(this.sessionAllow) };
  }

  /**
   * Where each "allow always" answer would save RULE. The user's file applies
   * to every workspace, so a relative path rule is anchored to this one there
   * (Edit(calc.py) → Edit(/abs/workspace/calc.py)).
   */
  persistTargets(rule: string): PersistTargets | undefined {
    if (!this.userConfigPath) return undefined;
    return { user: { path: this.userConfigPath, rule: this.anchored(rule) }, project: { path: this.projectConfigPath, rule: parseRule(rule).source } };
  }

  /**
   * Store an approval as a rule: "session" lasts for this Permissions object,
   * "persist" also appends it to the user's config.toml `[permissions] allow`,
   * "persist_project" to the project's reasonix.toml.
   */
  grant(rule: string, scope: "session" | "persist" | "persist_project"): void {
    const parsed = parseRule(rule);
    if (!this.sessionAllow.some((r) => r.source === parsed.source)) this.sessionAllow.push(parsed);
    if (scope === "persist_project") {
      const edit = persistRule(this.projectConfigPath, parsed.source);
      if (edit) this.onPersist?.(edit);
    } else if (scope === "persist") {
      if (!this.userConfigPath) throw new ReasonixError("permissions-persist", `cannot save ${parsed.source}: no user config file is known here`, { hint: "allow it for this session, or add it to [permissions] allow by hand" });
      persistRule(this.userConfigPath, this.anchored(parsed.source));
    }
  }

  /** A path rule relative to the workspace, made absolute (for the user-wide file). */
  private anchored(rule: string): string {
    const r = parseRule(rule);
    if (r.bash || r.spec === undefined || !PATH_FAMILIES.has(r.name)) return r.source;
    const spec = r.spec.trim();
    if (isAbsolute(spec) || spec.startsWith("~")) return r.source;
    const rel = spec.replace(/^\.\//, "");
    return `${r.name}(${rel === "." ? this.workspace : `${this.workspace}/${rel}`})`;
  }

  check(tool: ToolDefinition, input: unknown): PermissionDecision {
    const subject = this.subject(tool, input);
    const suggestedRule = this.suggest(tool, subject);
    const decide = (action: PermissionAction, reason: string): PermissionDecision => ({ action, reason, suggestedRule });

    // 1. deny rules
    const denied = this.deny.find((r) => this.hits(r, tool, subject, "broad"));
    if (denied) return decide("deny", `${this.describe(tool, subject)} is denied by the rule ${denied.source}`);

    // 2. write confinement known up front
    if (tool.kind === "write" && this.pathPolicy && subject.paths) {
      for (const p of subject.paths) {
        const d = this.pathPolicy.checkWrite(p);
        if (!d.allowed) return decide("deny", d.reason);
      }
    }

    // 3. mode blocks
    if (this.modeValue === "read-only" && (tool.kind === "write" || tool.kind === "bash" || tool.kind === "external")) {
      return decide("deny", `${this.describe(tool, subject)} is blocked: the session is in read-only mode`);
    }
    if (this.modeValue === "plan" && (tool.kind === "write" || tool.kind === "external")) {
      return decide("deny", `${this.describe(tool, subject)} is blocked: plan mode allows changes only after the plan is approved`);
    }

    // 4. ask rules
    const asked = this.askRules.find((r) => this.hits(r, tool, subject, "broad"));
    if (asked) {
      if (this.modeValue === "yolo") return decide("allow", `yolo mode skips the prompt required by ${asked.source}`);
      return this.askOrFail(decide, `${this.describe(tool, subject)} needs approval (rule ${asked.source})`, {
        hint: `the ask rule ${asked.source} requires a human; run interactively or remove that rule`,
      });
    }

    // 4b. what the tool says this input needs (a secret-looking memory fact asks even in auto mode)
    const need = this.approvalOf(tool, input);
    // Such a call changes what later sessions see: without a user to answer, it fails closed.
    if (need && this.headless && this.modeValue !== "yolo") {
      return this.askOrFail(decide, `${this.describe(tool, subject)} needs a user (${need.reason})`, { hint: "run it in a chat, or use --permission-mode yolo" });
    }
    if (need?.level === "always") {
      if (this.modeValue === "yolo") return decide("allow", `yolo mode skips the prompt: ${need.reason}`);
      return this.askOrFail(decide, `${this.describe(tool, subject)} needs approval: ${need.reason}`, {
        hint: "run interactively to approve it, or use --permission-mode yolo",
      });
    }

    // 5. allow rules (config, then grants)
    const allowRules = [...this.allow, ...this.sessionAllow];
    if (tool.kind === "bash") {
      const a = subject.bash!;
      const exact = allowRules.find((r) => r.bash?.kind === "exact" && r.bash.text === a.text.trim());
      if (exact) return decide("allow", `allowed by ${exact.source}`);
      if (a.hazards.length === 0) {
        const covering = a.commands.map((c) => allowRules.find((r) => r.bash && bashPatternMatchesArgv(r.bash, c.argv)));
        if (covering.every((r) => r !== undefined)) {
          const names = [...new Set(covering.map((r) => r!.source))].join(", ");
          return decide("allow", `allowed by ${names}`);
        }
      }
    } else {
      const allowed = allowRules.find((r) => this.hits(r, tool, subject, "strict"));
      if (allowed) return decide("allow", `allowed by ${allowed.source}`);
    }

    // 6. mode fallback
    if (need?.level === "free") return decide("allow", need.reason);
    const d = this.fallback(tool, subject, decide);
    return need && d.action !== "allow" ? { ...d, reason: `${d.reason} (${need.reason})` } : d;
  }

  /** The tool's own word on this input; a tool that cannot judge it asks. */
  private approvalOf(tool: ToolDefinition, input: unknown): { level: "free" | "ask" | "always"; reason: string } | undefined {
    if (!tool.approval) return undefined;
    try {
      return tool.approval(input);
    } catch (e) {
      return { level: "ask", reason: `its input could not be judged (${e instanceof Error ? e.message : String(e)})` };
    }
  }

  // ---------------------------------------------------------------- internals

  private fallback(
    tool: ToolDefinition,
    subject: Subject,
    decide: (a: PermissionAction, r: string) => PermissionDecision,
  ): PermissionDecision {
    const what = this.describe(tool, subject);
    if (tool.kind === "read" || tool.kind === "meta") return decide("allow", `${tool.kind === "read" ? "reading" : "session bookkeeping"} needs no approval`);
    // An installed MCP server's tools: installing it was the authorization (deny and ask rules came first).
    if (tool.kind === "external") return decide("allow", "a tool of an installed MCP server needs no per-call approval");
    if (this.modeValue === "yolo") return decide("allow", "yolo mode allows everything no deny rule blocks");
    // The agent process itself reaches the network: even auto mode asks, per domain.
    if (tool.kind === "network") {
      return this.askOrFail(decide, `${what} reaches the network and needs approval`, {
        hint: `add ${this.suggest(tool, subject)} to [permissions] allow, or use --permission-mode yolo`,
      });
    }
    if (tool.kind === "bash" && subject.bash!.nested) {
      const hz = subject.bash!.hazards.filter((h) => HAZARD_TEXT[h]).map((h) => HAZARD_TEXT[h]);
      const uses = [...new Set(hz)].join(", ");
      return this.askOrFail(decide, `${what} uses ${uses}, which no prefix rule can cover; a human must approve it`, {
        hint: `allow exactly this command with the rule ${this.suggest(tool, subject)}, or use --permission-mode yolo`,
      });
    }
    if (this.modeValue === "auto") return decide("allow", "auto mode allows changes no rule holds back");
    const extra = tool.kind === "bash" && subject.bash!.hazards.length > 0
      ? ` (it uses ${[...new Set(subject.bash!.hazards.map((h) => HAZARD_TEXT[h]))].join(", ")}, so only an exact rule can cover it)`
      : "";
    return this.askOrFail(decide, `${what} needs approval in ${this.modeValue} mode${extra}`, {
      hint: `pass --auto (or --permission-mode auto), or add ${this.suggest(tool, subject)} to [permissions] allow in reasonix.toml`,
    });
  }

  private askOrFail(
    decide: (a: PermissionAction, r: string) => PermissionDecision,
    reason: string,
    opts: { hint: string },
  ): PermissionDecision {
    if (!this.headless) return decide("ask", reason);
    return { ...decide("deny", `${reason}; this run is headless, so it was refused. To allow it: ${opts.hint}`), headlessAsk: true };
  }

  private subject(tool: ToolDefinition, input: unknown): Subject {
    const s: Subject = {};
    if (tool.kind === "bash") {
      const command = typeof (input as { command?: unknown })?.command === "string" ? (input as { command: string }).command : "";
      s.bash = analyzeBash(command);
    }
    if (tool.paths) {
      try {
        s.paths = tool.paths(input).filter((p) => typeof p === "string" && p !== "");
      } catch {
        s.paths = [];
      }
    }
    if (tool.domains) {
      try {
        s.domains = tool.domains(input).map((d) => String(d).toLowerCase());
      } catch {
        s.domains = [];
      }
    }
    return s;
  }

  private absolute(p: string): { lexical: string; real?: string } {
    // The same expansion the tools apply, `~` alone included.
    const expanded = expandTilde(p);
    const lexical = resolve(this.workspace, expanded);
    // The real path comes from the text as given: collapsing `..` first would
    // judge `docs/link/../x` as docs/x while the tool opens <link target>/../x.
    const raw = isAbsolute(expanded) ? expanded : `${this.workspace}${sep}${expanded}`;
    let real: string | undefined;
    try {
      real = this.pathPolicy ? this.pathPolicy.resolve(raw) : resolveReal(raw);
    } catch {
      real = undefined;
    }
    return { lexical, real };
  }

  /**
   * Does rule R apply to this call? "broad" (deny/ask) matches if any path or
   * command part could be meant; "strict" (allow) needs every path to match
   * by its real location.
   */
  private hits(r: Rule, tool: ToolDefinition, s: Subject, how: "broad" | "strict"): boolean {
    const family = ruleFamilyFor(tool);
    const nameMatches = ruleNameCovers(r.name, tool.name) || (family !== null && r.name === family) ||
      (WRITE_FAMILIES.has(r.name) && tool.kind === "write");
    if (!nameMatches) return false;
    if (tool.kind === "bash") {
      const pattern = r.bash ?? { kind: "any" as const };
      if (how === "broad") return bashPatternHitsAnywhere(pattern, s.bash!);
      return s.bash!.hazards.length === 0 && s.bash!.commands.every((c) => bashPatternMatchesArgv(pattern, c.argv));
    }
    if (r.spec === undefined) return true;
    if (tool.kind === "network") {
      // WebFetch(domain:example.com) covers example.com and its subdomains; an empty or unknown host matches no allow rule.
      const want = r.spec.trim().toLowerCase().replace(/^domain:/, "");
      const covered = (d: string) => d !== "" && (d === want || d.endsWith(`.${want}`));
      const ds = s.domains ?? [];
      if (ds.length === 0) return false;
      return how === "broad" ? ds.some(covered) : ds.every(covered);
    }
    const paths = s.paths ?? [];
    if (paths.length === 0) return false;
    const test = (p: string) => {
      const abs = this.absolute(p);
      const lex = pathPatternMatches(r.spec!, abs.lexical, this.workspace);
      const real = abs.real !== undefined ? pathPatternMatches(r.spec!, abs.real, this.workspace) : lex;
      return how === "broad" ? lex || real : lex && real;
    };
    return how === "broad" ? paths.some(test) : paths.every(test);
  }

  private describe(tool: ToolDefinition, s: Subject): string {
    if (tool.kind === "bash") return `bash \`${oneLine(s.bash!.text)}\``;
    if (s.paths && s.paths.length > 0) return `${tool.name} ${s.paths.map((p) => this.display(p)).join(" → ")}`;
    if (s.domains && s.domains.length > 0) return `${tool.name} ${s.domains.join(", ")}`;
    return tool.name;
  }

  private display(p: string): string {
    const abs = this.absolute(p).lexical;
    const rel = relative(this.workspace, abs);
    return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
  }

  private suggest(tool: ToolDefinition, s: Subject): string {
    if (tool.kind === "bash") return suggestBashRule(s.bash!);
    const family = tool.kind === "write" ? "Edit" : ruleFamilyFor(tool);
    if (family && s.paths && s.paths.length === 1) return `${family}(${this.display(s.paths[0]!)})`;
    if (tool.kind === "network" && s.domains?.length === 1 && s.domains[0]) return `WebFetch(domain:${s.domains[0]})`;
    return tool.name;
  }
}

interface Subject {
  bash?: BashAnalysis;
  paths?: string[];
  domains?: string[];
}

function ruleFamilyFor(tool: ToolDefinition): string | null {
  switch (tool.kind) {
    case "bash": return "Bash";
    case "write": return "Edit";
    case "read": return tool.paths ? "Read" : null;
    case "network": return "WebFetch";
    default: return null;
  }
}

const oneLine = (s: string) => {
  const t = s.trim().replace(/\s*\n\s*/g, " ⏎ ");
  return t.length > 120 ? `${t.slice(0, 117)}…` : t;
};
