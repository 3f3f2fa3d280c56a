import { defineCommand } from "../command.ts";
import type { EngineEvent } from "../../core/engine/types.ts";
import { PERMISSION_MODES, type PermissionMode } from "../../core/protocol/modes.ts";
import { emptyTranscript, fold } from "../../core/protocol/fold.ts";
import { cacheSavedText, roleSpendText } from "../../core/sessions/cost.ts";
import { dim, printJson, printJsonLine, warn, yellow } from "../output.ts";
import type { RunArgs } from "../run-args.ts";
import { traceMark } from "../../core/trace.ts";
import { UsageCounters } from "../../core/telemetry/counters.ts";



async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export default defineCommand<RunArgs>({
  command: "run [prompt..]",
  describe: "Run one task headless (prompt from the argument or stdin) and exit",
  builder: (y) =>
    y
      .positional("prompt", { type: "string", array: true, describe: "The task; read from stdin when omitted" })
      .option("model", { alias: "m", type: "string", describe: "Provider entry (or entry/model) to use instead of default_model; with --resume/-c the session goes on on it" })
      .option("auto", { alias: "y", type: "boolean", default: false, describe: "Allow writers and commands no rule holds back (same as --permission-mode auto)" })
      .option("permission-mode", { type: "string", choices: [...PERMISSION_MODES], describe: "Permission mode for this run" })
      .option("max-steps", { type: "number", describe: "Stop after this many model steps (exit 3)" })
      // nargs 1: repeat the flag for several dirs, so a prompt after it is not swallowed.
      .option("add-dir", { type: "string", array: true, nargs: 1, describe: "Extra directory the file tools may write (repeat for several)" })
      .option("dir", { type: "string", describe: "Workspace directory (default: current directory)" })
      .option("continue", { alias: "c", type: "boolean", default: false, describe: "Continue the latest session of this workspace" })
      .option("resume", { type: "string", describe: "Continue the session with this id" })
      .option("trust-project", { type: "boolean", default: false, describe: "Approve this workspace's project files as they are now, for this run only (CI)" })
      .option("goal", { type: "string", describe: "Goal mode: keep working across turns until the objective is complete (exit 0), blocked or paused (exit 1). With --resume/-c and no objective: resume the session's paused goal" })
      .option("output-format", { type: "string", choices: ["text", "json", "stream-json"], default: "text", describe: "text, one JSON result, or one JSON event per line" })
      .example('reasonix run "fix the failing test" --auto', "")
      .example("git diff | reasonix run --output-format json", "")
      .example('reasonix run --auto --goal "make npm test pass"', "")
      .epilog("Exit codes: 0 finished (--goal: complete), 1 provider or tool failure (--goal: blocked or paused, with the reason), 2 usage error, 3 stopped by --max-steps or a refused permission, 4 the model asked the user a question (needs the user; the question is named), 130 interrupted.") as any,
  run: (args) => runCommand(args),
});

/** The command itself; cli/main.ts calls it directly when cli/run-args.ts could read the arguments. */
export async function runCommand(args: RunArgs): Promise<number> {
  if (process.env.REASONIX_TEST_CRASH) (await import("../test-crash.ts")).testCrash("run");
  const { UsageError } = await import("../../core/errors.ts");
  if (args.continue && args.resume) throw new UsageError("use either -c/--continue or --resume ID, not both");
  if (args.auto && args.permissionMode && args.permissionMode !== "auto") throw new UsageError(`--auto conflicts with --permission-mode ${args.permissionMode}`);
  if (args.maxSteps !== undefined && (!Number.isInteger(args.maxSteps) || args.maxSteps < 1)) throw new UsageError("--max-steps must be a positive integer");

  let prompt = (args.prompt ?? []).join(" ").trim();
  const goalMode = args.goal !== undefined;
  // --goal "objective", or --goal with the objective as the prompt; empty with --resume/-c: resume the paused goal.
  const objective = goalMode ? (args.goal!.trim() || prompt) : "";
  if (goalMode && args.goal!.trim() && prompt) throw new UsageError("give the objective once: --goal \"…\" or the prompt, not both");
  if (goalMode && !objective && !args.resume && !args.continue) throw new UsageError("--goal needs an objective", 'e.g. reasonix run --goal "make npm test pass" (or --resume ID --goal to resume a paused goal)');
  if (!goalMode && !prompt && !process.stdin.isTTY) prompt = (await readStdin()).trim();
  if (!goalMode && !prompt) throw new UsageError("no prompt: pass it as an argument or on stdin", 'e.g. reasonix run "explain src/main.ts"');
  // A built-in command (/help, /compact, /mcp; the others say what to use instead) is run, never sent as a prompt.
  const builtins = await import("../run-command.ts");
  const builtin = goalMode ? undefined : builtins.runBuiltin(prompt);
  if (builtin && !builtins.needsSession(builtin)) return builtins.printRunBuiltin(builtin, args.outputFormat);

  const { loadConfig } = await import("../../core/config/load.ts");
  const { createEngine } = await import("../../core/engine/index.ts");
  const { SessionHost } = await import("../../core/host/session-host.ts");
  const { homePaths } = await import("../../core/home.ts");
  const { SessionStore } = await import("../../core/sessions/store.ts");

  let dir = args.dir ?? process.cwd();
  if (args.resume && !args.dir) {
    // Resume in the session's own workspace, wherever we are called from.
    dir = new SessionStore(homePaths().sessions).load(args.resume).meta.workspace;
  }
  traceMark("run:modules");
  const cfg = loadConfig({ cwd: dir, trustProject: args.trustProject });
  traceMark("run:config");
  for (const w of cfg.warnings) warn(w);
  const mode = args.auto ? "auto" : (args.permissionMode as PermissionMode | undefined);
  // `#note`: appended to the project's instruction file, never sent to the model.
  const configMode = ((cfg.values.permissions ?? {}) as { mode?: string }).mode;
  const noted = goalMode ? undefined : await (await import("../note.ts")).noteFromRun(prompt, dir, mode ?? configMode ?? "ask", args.outputFormat);
  if (noted !== undefined) return noted;
  // Usage counters (docs/telemetry.md): only buckets, fed from the events; whether they are kept is decided at the end.
  const counters = new UsageCounters();
  const engine = createEngine({
    workspace: dir,
    // The config read above, as is: the engine and its MCP servers do not read it again.
    loaded: cfg,
    trustProject: args.trustProject,
    headless: true,
    permissionMode: mode,
    maxSteps: args.maxSteps,
    extraWriteRoots: args.addDir,
    // Usage counters (docs/telemetry.md): a resumed conversation and what opening it repaired.
    onSessionOpen: (s) => counters.sessionOpened(s),
  });

  traceMark("run:engine");
  let session;
  let created = false;
  if (args.resume) session = await engine.resumeSession(args.resume);
  else if (args.continue) {
    const latest = (await engine.listSessions())[0];
    if (latest) session = await engine.resumeSession(latest.id);
    else {
      if (args.outputFormat === "text") process.stderr.write(dim("no earlier session in this workspace; starting a new one\n", process.stderr));
      session = await engine.createSession({ model: args.model });
      created = true;
    }
  } else {
    session = await engine.createSession({ model: args.model });
    created = true;
  }
  // The one session host (core/host), as every front end: --model on a continued session switches it like the chat's /model.
  const host = new SessionHost(engine, session);
  if (!created && args.model) {
    try {
      session = await host.switchModel(args.model);
    } catch (e) {
      await engine.close();
      throw e;
    }
  }
  // Recorded when the session was made (e.g. a skipped instruction file): shown once, not on every resume.
  if (builtin) {
    try {
      return await builtins.printRunBuiltin(builtin, args.outputFormat, { engine, session });
    } finally {
      await engine.close();
    }
  }
  const warnings: Extract<EngineEvent, { type: "warning" }>[] = created ? session.history().filter((e): e is Extract<EngineEvent, { type: "warning" }> => e.type === "warning") : [];
  for (const w of warnings) warn(w.message);

  traceMark("run:session");
  const fmt = args.outputFormat;
  let finalText = "";
  let lastUsage: Extract<EngineEvent, { type: "usage" }> | undefined;
  let errorText: string | undefined;
  if (fmt === "stream-json") {
    printJsonLine({ type: "session", sessionId: session.id, workspace: session.workspace, model: session.model });
    for (const w of warnings) printJsonLine(w);
  }
  const { TextRunOutput } = await import("../run-text-output.ts");
  const text = fmt === "text" ? new TextRunOutput() : undefined;
  // The json result is the last answer as the one transcript fold has it (a continuation joins the cut answer).
  const answers = emptyTranscript();
  session.subscribe((e) => {
    counters.observe(e);
    // A warning (e.g. an MCP server that failed to start) is for the person too, whatever the format.
    if (e.type === "warning" && fmt !== "text") warn(e.message);
    if (e.type === "warning") warnings.push(e);
    if (fmt === "stream-json") return printJsonLine(e);
    const s = fold(answers, e);
    if (s.op === "answer") finalText = s.block.text;
    if (e.type === "usage") lastUsage = e;
    if (e.type === "error") errorText = e.message;
    if (e.type === "turn_end" && e.error && !errorText) errorText = e.error;
    text?.handle(e);
  });

  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    session.cancel();
  };
  process.on("SIGINT", onSigint);
  let reason;
  let goal: import("../../core/engine/types.ts").GoalView | undefined;
  try {
    if (goalMode) {
      goal = objective ? await session.goal.start(objective) : await session.goal.resume();
      reason = goal.status === "complete" ? "done" : interrupted ? "cancelled" : "error";
    } else reason = await host.submit(prompt);
  } finally {
    process.off("SIGINT", onSigint);
    await engine.close();
  }
  traceMark("run:done");
  const exit = reason === "done" ? 0 : reason === "max_steps" || reason === "denied" ? 3 : reason === "needs_user" || goal?.pauseCode === "needs_user" ? 4 : reason === "cancelled" ? 130 : 1;
  // A goal's outcome is its reason (paused/blocked), not the last turn's error.
  if (goal && goal.status !== "complete") errorText = `goal ${goal.status}: ${goal.reason ?? ""}`;
  if (fmt === "json") {
    printJson({
      session_id: session.id,
      reason,
      exit_code: exit,
      result: finalText,
      ...(errorText ? { error: errorText } : {}),
      ...(warnings.length ? { warnings: warnings.map((w) => w.message) } : {}),
      // What was counted: this run's, else the session's so far (a resumed session), else nothing yet.
      usage: lastUsage?.total ?? session.history().findLast((e): e is Extract<EngineEvent, { type: "usage" }> => e.type === "usage")?.total ?? { inputTokens: 0, outputTokens: 0, cacheHitTokens: 0 },
      cache_hit_percent: lastUsage?.cacheHitPercent ?? 0,
      ...(lastUsage?.cost ? { cost: lastUsage.cost } : {}),
      ...(lastUsage?.byRole ? { usage_by_role: lastUsage.byRole } : {}),
      ...(goal ? { goal } : {}),
    });
  } else if (fmt === "text") {
    text!.finish();
    const err = process.stderr;
    if (lastUsage) {
      const t = lastUsage.turn;
      const c = lastUsage.cost;
      // Steps whose provider reported no usage have unknown tokens (and cost), not zero.
      const cost = c && !t.unreported ? ` · cost ${c.turn.toFixed(4)} ${c.currency} (session ${c.total.toFixed(4)}${cacheSavedText(lastUsage.cacheSaved, (n) => n.toFixed(4))})` : "";
      const counts = t.unreported && !t.inputTokens && !t.outputTokens
        ? "tokens unknown (the provider reported no usage)"
        : `${t.inputTokens} tokens in (${lastUsage.cacheHitPercent}% from cache), ${t.outputTokens} out${t.unreported ? ` (and ${t.unreported} step${t.unreported === 1 ? "" : "s"} the provider reported no usage for)` : ""}`;
      err.write(dim(`this turn: ${counts}${cost} · session ${session.id}\n`, err));
      if (lastUsage.byRole) err.write(dim(`of the session's spend: ${roleSpendText(lastUsage.byRole, c?.currency)}\n`, err));
    }
    if (reason === "max_steps") err.write(`${yellow("stopped:", err)} reached --max-steps; continue with: reasonix run --resume ${session.id} "continue"\n`);
    if (goal && goal.status !== "complete") err.write(`${yellow("stopped:", err)} goal ${goal.status}: ${goal.reason ?? ""}; continue with: reasonix run --resume ${session.id} --goal\n`);
    if (reason === "denied") err.write(`${yellow("stopped:", err)} a permission was refused (see above); rerun with --auto or add an allow rule\n`);
    if (reason === "needs_user") err.write(`${yellow("stopped:", err)} ${errorText ?? "the model asked the user a question this run cannot answer"}\n`);
  }
  const { TelemetrySession, telemetryConfig } = await import("../../core/telemetry/session.ts");
  await new TelemetrySession(homePaths().home, telemetryConfig(cfg.values), "run", false, counters).finish();
  return exit;
}
