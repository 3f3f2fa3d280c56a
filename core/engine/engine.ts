import { existsSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadConfig, projectConfigPath } from "../config/load.ts";
import { maxOutputTokensOf, maxStepsOf } from "../config/limits.ts";
import { ReasonixError } from "../errors.ts";
import { homePaths, reasonixHome } from "../home.ts";
import { createProvider } from "../providers/registry.ts";
import { modelInfos, providerEntries, selectModel } from "../providers/config.ts";
import { PROXY_KEY_ENV, proxiedEntries, proxyManifestFromEnv, proxySecretReader } from "../providers/proxy.ts";
import { defaultRetryPolicy } from "../providers/retry.ts";
import "../providers/index.ts";
import { parseRule } from "../permissions/rules.ts";
import { createPathPolicy, isWithin, resolveReal, type PathPolicy, type SandboxConfig } from "../policy/paths.ts";
import { reapproveOwnEdit } from "../trust/report.ts";
import { trustState } from "../trust/index.ts";
import { SecretStore } from "../secrets/dotenv.ts";
import { SessionStore } from "../sessions/store.ts";
import { forkSession as forkLog } from "../sessions/fork.ts";
import { setSessionTitle } from "../sessions/title.ts";
import { registerBuiltinTools } from "../tools/builtin/index.ts";
import { ToolRegistry } from "../tools/registry.ts";
import { combineSources, type ToolSource } from "../tools/sources.ts";
import { workspaceMcp } from "../mcp/source.ts";
import type { McpManager } from "../mcp/manager.ts";
import { mcpCommandSource, mcpResourceReader } from "../mcp/prompts.ts";
import { serverStatuses } from "../mcp/report.ts";
import { instructionsBlock, scanInstructionFiles, skippedWarning } from "./instructions.ts";
import { createPermissionGate } from "./permission-gate.ts";
import { createGuardian } from "../guardian/setup.ts";
import { createPlanner } from "../planner/setup.ts";
import { sessionExtensions, skillIndexFor } from "./extensions.ts";
import { workspaceCommands } from "../commands/index.ts";
import { systemPrompt } from "./prompt.ts";
import { createAgentWiring } from "../agents/wiring.ts";
import type { ChildRequest } from "../agents/child.ts";
import { findProfile } from "../agents/profiles.ts";
import { childWriteScope } from "../agents/paths.ts";
import { LiveSession } from "./session.ts";
import { MemoryStore } from "../memory/store.ts";
import { Recaller } from "../memory/recall.ts";
import { RecallTraces } from "../memory/traces.ts";
import { memoryTools } from "../memory/tools.ts";
import { entryPrices } from "../providers/pricing.ts";
import type { ProviderConfig } from "../providers/types.ts";
import type { Engine, ModelInfo, PermissionMode, SessionSummary } from "./types.ts";
import type { EngineOptions } from "./options.ts";
import type { JobTable } from "../tools/jobs.ts";

const asStrings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const section = (values: Record<string, unknown>, name: string) => (values[name] ?? {}) as Record<string, unknown>;

/** Reject a malformed permission rule up front, naming the file and the field that holds it. */
function checkPermissionRules(values: Record<string, unknown>, sources?: Map<string, string>): void {
  const perms = section(values, "permissions");
  for (const list of ["allow", "ask", "deny"] as const) {
    asStrings(perms[list]).forEach((rule, i) => {
      try {
        parseRule(rule);
      } catch (e) {
        if (!(e instanceof ReasonixError)) throw e;
        const file = sources?.get(`permissions.${list}`) ?? "config";
        throw new ReasonixError("config", `${file}: permissions.${list}[${i}]: ${e.message}`, { hint: e.hint });
      }
    });
  }
}

function builtinTools(): ToolRegistry {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  return registry;
}

export function resolveWorkspace(dir: string): string {
  const abs = resolve(dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new ReasonixError("workspace", `workspace ${abs} is not a directory`, { exitCode: 2 });
  return realpathSync(abs);
}

/** The engine for one workspace: model choice, sessions, tools, policy. */
export function createEngine(opts: EngineOptions): Engine {
  const workspace = resolveWorkspace(opts.workspace);
  const home = opts.home ?? reasonixHome();
  const loaded = opts.loaded ?? (opts.config ? undefined : loadConfig({ cwd: workspace, home }));
  const values = opts.config ?? loaded!.values;
  checkPermissionRules(values, loaded?.sources ?? opts.configSources);
  // A process started behind a provider proxy ($REASONIX_PROVIDER_PROXY_FILE, see
  // core/providers/proxy.ts) uses the proxy's entries and default, and holds no key.
  const proxy = proxyManifestFromEnv();
  const entries = proxy ? proxiedEntries(proxy) : providerEntries(values);
  const defaultModel = (proxy ? proxy.default_model : values.default_model) as string | undefined;
  const secrets = new SecretStore(join(home, ".env"));
  const proxySecret = proxy ? proxySecretReader(proxy) : null;
  const secret = (name: string) => (proxySecret && name === PROXY_KEY_ENV ? proxySecret() : secrets.get(name));
  const store = new SessionStore(homePaths(home).sessions);
  // Remembered facts (core/memory): in the home, keyed by this workspace; recalled into user turns.
  const memory = new MemoryStore(home, workspace);
  const recallOn = (values.memory as { recall?: unknown } | undefined)?.recall !== false;
  /** Each session's last recall trace, by id: kept with the session (its folder), so a reopened session still has it. */
  const recalls = new RecallTraces((id) => store.recallPath(id), workspace);
  const live = new Set<LiveSession>();
  /** Each open session's full path policy: a subagent reuses its parent's (same inputs; bash re-scans git state per command). */
  const fullPolicies = new WeakMap<LiveSession, PathPolicy>();
  /** Background jobs of a conversation being reopened (a model switch), by session id, until it is. */
  const parkedJobs = new Map<string, JobTable>();
  let registry: ToolRegistry | undefined;
  // Outside tools (MCP servers start in the background when the first session opens).
  let toolSource: ToolSource | undefined | null = null;
  let mcp: McpManager | undefined;
  const outsideTools = (): ToolSource | undefined => {
    if (toolSource !== null) return toolSource;
    const list = [...(opts.toolSources ?? [])];
    if (opts.mcp !== false) {
      mcp = workspaceMcp({ workspace, home, values, loaded, projectTrusted: loaded ? loaded.trust.trusted : !!opts.projectTrusted, passed: opts.mcpServers });
      if (mcp) list.push(mcp);
    }
    return (toolSource = combineSources(list));
  };

  const agent = section(values, "agent");
  const perms = section(values, "permissions");
  const sandbox = section(values, "sandbox");
  const toolsCfg = section(values, "tools");
  const maxSteps = opts.maxSteps ?? maxStepsOf(values);
  const compactRatio = Number(agent.compact_ratio ?? 0.8);
  const maxOutputTokens = maxOutputTokensOf(values);
  const mode = (opts.permissionMode ?? perms.mode ?? "ask") as PermissionMode;
  const extraWriteRoots = (opts.extraWriteRoots ?? []).map((p) => resolve(workspace, p));
  const sources = loaded?.sources ?? opts.configSources;
  const projectTrusted = loaded ? loaded.trust.trusted : !!opts.projectTrusted;
  const projectFile = projectConfigPath(workspace);

  /**
   * An unapproved project may narrow workspace_root only to a directory inside
   * the workspace. Judged again at every session start: a directory swapped
   * for a symlink since the config was read must not widen the root.
   */
  /** A provider for a configured entry: a command's `model:` runs one turn on it. */
  const providerFor = (name: string) => {
    const c = selectModel(entries, name, undefined);
    const provider = createProvider({ ...c.entry, model: c.model, ...(maxOutputTokens > 0 && !c.entry.max_output_tokens ? { max_output_tokens: maxOutputTokens } : {}) }, { secret });
    return { provider, prices: entryPrices(c.entry) };
  };

  function checkProjectRoot(): void {
    const root = (sandbox as SandboxConfig).workspace_root;
    if (!root || projectTrusted || !sources?.get("sandbox.workspace_root")?.startsWith(projectFile)) return;
    if (!isWithin(resolveReal(root, workspace), workspace)) {
      throw new ReasonixError("sandbox-policy", `${projectFile}: sandbox.workspace_root (${root}) now resolves outside the workspace ${workspace}`, {
        hint: "remove the setting, or approve the workspace with `reasonix trust`",
      });
    }
  }

  // Subagents (core/agents): the `task` tool, child sessions linked to their parent, profiles.
  const agents = createAgentWiring({
    workspace, home, values,
    create: (model) => store.create({ workspace, model, createdAt: new Date().toISOString() }),
    open: (file, model, child) => open(file, model, child),
    resolveModel: (wanted) => selectModel(entries, wanted, defaultModel).name,
  });

  function takeParked(id: string): JobTable | undefined {
    const jobs = parkedJobs.get(id);
    parkedJobs.delete(id);
    return jobs;
  }

  async function open(file: import("../sessions/store.ts").SessionFile, modelKey: string, child?: ChildRequest): Promise<LiveSession> {
    const choice = selectModel(entries, modelKey, defaultModel);
    const provider = createProvider({ ...choice.entry, model: choice.model, ...(maxOutputTokens > 0 && !choice.entry.max_output_tokens ? { max_output_tokens: maxOutputTokens } : {}) }, { secret });
    registry ??= opts.tools ?? builtinTools();
    const tools = registry.list(asStrings(toolsCfg.enabled));
    checkProjectRoot();
    // One path policy for the permission check and the file tools' enforcement.
    const policyOpts = { config: sandbox as SandboxConfig, cwd: workspace, extraWrite: extraWriteRoots, reasonixHome: home };
    const parent = child?.parent && [...live].find((s) => s.id === child.parent!.id);
    // Its nested-repository scan waits for the first write, removal or bash command: a run that only reads or answers never pays for it.
    const pathPolicy = (parent && fullPolicies.get(parent)) || createPathPolicy({ ...policyOpts, scan: "deferred" });
    // A subagent's tools and bash sandbox write only in its write paths (none when read-only); refusals reach its model.
    const onlyWrite = childWriteScope(workspace, child);
    const toolPolicy = onlyWrite ? createPathPolicy({ ...policyOpts, onlyWrite, full: pathPolicy }) : pathPolicy;
    const gate = createPermissionGate({
      mode,
      allow: asStrings(perms.allow),
      ask: asStrings(perms.ask),
      deny: asStrings(perms.deny),
      headless: !!opts.headless,
      workspace,
      pathPolicy,
      projectConfigPath: projectFile,
      userConfigPath: join(home, "config.toml"),
      // "Always allow" edits reasonix.toml for the user; keep its approval in step.
      onPersist: (edit) => reapproveOwnEdit(workspace, edit.before, edit.after, home),
    });
    // The Guardian (core/guardian): a second model reviews risky calls in auto/yolo modes; none unless [guardian] enabled.
    const guardian = createGuardian({ values, sources, entries, deps: { secret }, session: { provider, name: choice.name }, retry: { ...defaultRetryPolicy, ...(opts.retry ?? {}) }, workspace, pathPolicy, headless: !!opts.headless, mode: () => gate.mode ?? mode });
    // Commands, skills, @references and hooks (core/commands, core/hooks).
    const outside = outsideTools();
    // MCP prompts are /mcp__<server>__<prompt> commands; resources are @<server>:<uri> references.
    const mcpExt = mcp ? { commandSources: [mcpCommandSource(mcp)], mcpResource: mcpResourceReader(mcp) } : {};
    const sub = agents.forSession({ child, owner: () => session });
    // Recall serves the user's own turns: a subagent's task comes from the model, not the user.
    const recaller = recallOn && !child ? new Recaller(memory) : undefined;
    const ext = sessionExtensions({ workspace, home, values, sources, pathPolicy, gate, trustAll: loaded?.trust.viaFlag ?? opts.trustProject, ...mcpExt, runProfile: sub.runProfile, models: entries.map((e) => e.name), ...(recaller ? { recall: (m: string) => recalls.set(file.id, recaller.recall(m)) } : {}) });
    const session: LiveSession = new LiveSession(file, {
      workspace,
      provider,
      modelName: choice.name,
      system: systemPrompt({ workspace, reasoningLanguage: typeof agent.reasoning_language === "string" ? agent.reasoning_language : undefined }),
      // The memory tools (remember/forget/recall) in every user-facing session; a subagent has none (fails closed).
      tools: sub.tools([...tools, ...ext.tools, ...(child ? [] : memoryTools(memory))]),
      // An MCP prompt command may name a server still starting: give it the grace period first.
      prepare: mcp ? async (p: string, sig: AbortSignal) => (p.startsWith("/mcp__") && (await mcp!.settle(sig)), ext.prepare(p, sig)) : ext.prepare,
      hooks: ext.hooks,
      turnModel: ext.turnModel,
      providerFor,
      ...(guardian ? { guardian } : {}),
      // The planner (core/planner): [agent] planner_model, on explicit plan requests only.
      ...((p) => (p ? { planner: p } : {}))(createPlanner({ values, sources, entries, deps: { secret }, workspace, tools: [...tools, ...ext.tools], retry: { ...defaultRetryPolicy, ...(opts.retry ?? {}) } })),
      toolSource: outside,
      gate: ext.gate ?? gate,
      headless: !!opts.headless,
      maxSteps: maxSteps > 0 ? maxSteps : 50,
      compactRatio: compactRatio > 0 && compactRatio < 1 ? compactRatio : 0.8,
      config: values,
      extraWriteRoots,
      pathPolicy: toolPolicy,
      retry: { ...defaultRetryPolicy, ...(opts.retry ?? {}) },
      prices: entryPrices(choice.entry),
      onClose: () => live.delete(session),
      ...((jobs) => (jobs ? { jobs } : {}))(takeParked(file.id)),
      parkJobs: (jobs) => parkedJobs.set(file.id, jobs),
    });
    live.add(session);
    fullPolicies.set(session, pathPolicy);
    await ext.start(session.id, file.state().turns.length > 0 ? "resume" : "startup");
    if (!child) {
      try {
        opts.onSessionOpen?.(session);
      } catch {
        // An observer (usage counters) never stops a session from opening.
      }
    }
    return session;
  }

  return {
    workspace,
    async createSession(o = {}) {
      const choice = selectModel(entries, o.model, defaultModel);
      const file = store.create({ workspace, model: choice.name, createdAt: new Date().toISOString() });
      try {
        // Instructions ride in the conversation (turn 0), never in the system prompt.
        const scan = scanInstructionFiles(workspace, home);
        // Skipped files are the user's business, recorded once so every front end shows them.
        for (const s of scan.skipped) file.append({ t: "warning", code: "instruction_skipped", message: skippedWarning(s) });
        for (const w of scan.warnings) file.append({ t: "warning", code: "instruction_import", message: w });
        // The skill index (one line per skill) rides in the same cache-stable first message.
        const skills = skillIndexFor(workspaceCommands({ workspace, home, values, trust: trustState(workspace, values, !!(loaded?.trust.viaFlag ?? opts.trustProject)) }));
        const block = [instructionsBlock(scan.files), skills].filter(Boolean).join("\n\n");
        if (block) file.append({ t: "msg", turn: 0, msg: { role: "user", content: block } });
        return await open(file, choice.name);
      } catch (e) {
        file.close();
        throw e;
      }
    },
    async resumeSession(id, o = {}) {
      // A session this engine already has open is handed out again (e.g. a reconnecting browser).
      for (const s of live) {
        if (s.id !== id) continue;
        if (!o.model || selectModel(entries, o.model, undefined).name === s.model) return s;
        if (s.busy) throw new ReasonixError("session_busy", "cannot switch the model while a turn is running");
        await s.close();
      }
      const file = store.open(id);
      try {
        const state = file.state();
        if (state.meta.workspace !== workspace) {
          throw new ReasonixError("session_workspace", `session ${id} belongs to workspace ${state.meta.workspace}, not ${workspace}`, { hint: `run it from that directory (or pass --dir ${state.meta.workspace})`, exitCode: 2 });
        }
        // Another model for the rest of the conversation: recorded, so a later resume keeps it.
        const model = o.model ? selectModel(entries, o.model, undefined).name : state.model;
        if (model !== state.model) file.append({ t: "model", model });
        return await open(file, model);
      } catch (e) {
        file.close();
        throw e;
      }
    },
    async forkSession(id, o = {}) {
      // The original is only read; the fork is a new log, locked and opened here.
      const file = forkLog(store, id, { turn: o.turn, workspace });
      try {
        return await open(file, file.state().model);
      } catch (e) {
        file.close();
        throw e;
      }
    },
    async renameSession(id, title) {
      return setSessionTitle(store, id, title, { workspace });
    },
    async listSessions(o = {}): Promise<SessionSummary[]> {
      return store.list(o).filter((s) => s.workspace === workspace);
    },
    async deleteSession(id) {
      // Sessions of every workspace share one store: never reach into another's.
      if (store.load(id).meta.workspace !== workspace) {
        throw new ReasonixError("session_workspace", `session ${id} belongs to another workspace`, { hint: "delete it from that workspace, or with: reasonix sessions delete", exitCode: 2 });
      }
      for (const s of live) if (s.id === id) await s.close();
      store.delete(id);
      recalls.forget(id);
    },
    async discoverModels(name: string, signal?: AbortSignal): Promise<string[]> {
      const choice = selectModel(entries, name, undefined);
      return createProvider({ ...choice.entry, model: choice.model }, { secret }).listModels(signal);
    },
    async runSubagent(name, task, o) {
      const commands = workspaceCommands({ workspace, home, values, trust: trustState(workspace, values, !!(loaded?.trust.viaFlag ?? opts.trustProject)) });
      return agents.runProfile(findProfile(commands, name), task, o);
    },
    mcpServers() {
      outsideTools();
      return mcp ? serverStatuses(mcp.connections) : [];
    },
    commandSources() {
      outsideTools();
      return mcp ? [mcpCommandSource(mcp)] : [];
    },
    async mcpStarted() {
      outsideTools();
      await mcp?.start();
    },
    queueFile: (id: string) => store.queuePath(id),
    memory() {
      return { store: memory, recallOn, lastRecall: (id: string) => recalls.get(id), instructions: () => scanInstructionFiles(workspace, home) };
    },
    models(): ModelInfo[] {
      let keys: Map<string, string>;
      try {
        keys = secrets.read();
      } catch {
        keys = new Map();
      }
      return modelInfos(entries, (n) => (!!proxySecret && n === PROXY_KEY_ENV) || !!keys.get(n));
    },
    async close() {
      await Promise.all([...live].map((s) => s.close()));
      await Promise.all([...parkedJobs.values()].map((j) => j.closeAll()));
      parkedJobs.clear();
      await toolSource?.close();
    },
  };
}
