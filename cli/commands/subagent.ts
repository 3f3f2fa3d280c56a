// `reasonix subagent`: manage and run subagent profiles (skills with runAs: subagent; docs/subagents.md).
import { subagentLine, type SubagentProgress } from "../../core/agents/events.ts";
import { UsageError } from "../../core/errors.ts";
import { defineCommand, defineGroup } from "../command.ts";
import { bold, dim, green, printJson, warn, yellow } from "../output.ts";

const dirOption = { type: "string", describe: "Workspace directory (default: the current one)" } as const;
const scopeOption = { type: "string", choices: ["project", "global"], describe: "Where the profile lives (default: project)" } as const;

async function context(dir?: string) {
  const { resolve } = await import("node:path");
  const { loadConfig } = await import("../../core/config/load.ts");
  const { reasonixHome } = await import("../../core/home.ts");
  const workspace = resolve(dir ?? process.cwd());
  const cfg = loadConfig({ cwd: workspace });
  return { workspace, home: reasonixHome(), cfg };
}

const splitList = (v: string | undefined): string[] | undefined => (v === undefined ? undefined : v.split(",").map((s) => s.trim()).filter(Boolean));

async function readPrompt(file: string | undefined): Promise<string | undefined> {
  if (file === undefined) return undefined;
  const { readFileSync } = await import("node:fs");
  try {
    return file === "-" ? readFileSync(0, "utf8") : readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read --prompt-file ${file}: ${(e as Error).message}`);
  }
}

const list = defineCommand<{ json: boolean; dir?: string }>({
  command: "list",
  describe: "List subagent profiles (project and global), with why one cannot run",
  builder: (y) => y.option("json", { type: "boolean", default: false, describe: "Print as JSON" }).option("dir", dirOption),
  run: async (args) => {
    const { workspaceCommands } = await import("../../core/commands/index.ts");
    const { isProfile } = await import("../../core/agents/profiles.ts");
    const { workspace, home, cfg } = await context(args.dir);
    const catalog = workspaceCommands({ workspace, home, values: cfg.values }).catalog();
    const rows = [...catalog.entries, ...catalog.notLoaded].filter(isProfile).map((e) => ({
      name: e.name,
      description: e.description,
      scope: e.scope === "user" ? "global" : e.scope,
      path: e.path,
      tools: e.skill?.tools ?? [],
      ...(e.model ? { model: e.model } : {}),
      ...(e.notLoaded ? { notLoaded: e.notLoaded } : {}),
    }));
    if (args.json) return printJson({ workspace, profiles: rows });
    if (rows.length === 0) {
      process.stderr.write('no subagent profiles (create one: reasonix subagent create NAME --description "…" --prompt-file F)\n');
      return;
    }
    for (const r of rows) {
      const state = r.notLoaded ? yellow(r.notLoaded) : green("ready");
      process.stdout.write(`${bold(r.name)}  ${dim(r.scope)}  ${state}\n  ${r.description}${r.tools.length ? dim(`  tools: ${r.tools.join(", ")}`) : ""}${r.model ? dim(`  model: ${r.model}`) : ""}\n`);
    }
  },
});

interface EditArgs { name: string; description?: string; promptFile?: string; tools?: string; model?: string; scope?: "project" | "global"; dir?: string }

const fieldOptions = (y: any) =>
  y
    .positional("name", { type: "string", demandOption: true })
    .option("description", { type: "string", describe: "What the profile is for (shown in lists)" })
    .option("prompt-file", { type: "string", describe: "File holding the profile's instructions (- for stdin)" })
    .option("tools", { type: "string", describe: "Comma-separated tool names it may use (empty: all)" })
    .option("model", { type: "string", describe: "Provider entry to run it on (honoured for global profiles only; see [agent] subagent_models)" })
    .option("scope", scopeOption)
    .option("dir", dirOption);

const create = defineCommand<EditArgs>({
  command: "create <name>",
  describe: "Create a subagent profile",
  builder: (y) => fieldOptions(y).example('reasonix subagent create reviewer --description "Review changes" --prompt-file reviewer.md --tools read_file,grep,bash', ""),
  run: async (args) => {
    const files = await import("../../core/agents/profile-files.ts");
    const { workspace, home } = await context(args.dir);
    files.checkName(args.name);
    if (!args.description?.trim()) throw new UsageError("create needs --description");
    const prompt = await readPrompt(args.promptFile);
    if (!prompt?.trim()) throw new UsageError("create needs --prompt-file with the profile's instructions");
    const scope = args.scope ?? "project";
    const path = files.profilePath(scope, args.name, { workspace, home });
    const { existsSync } = await import("node:fs");
    if (existsSync(path)) throw new UsageError(`subagent ${args.name} already exists (${path}); use: reasonix subagent edit ${args.name}`);
    files.writeProfile(path, args.name, { description: args.description, prompt, tools: splitList(args.tools), ...(args.model ? { model: args.model } : {}) });
    process.stdout.write(`created ${bold(args.name)} ${dim(path)}\n`);
    if (scope === "project") process.stderr.write(dim("a project profile is repository content: it runs once the workspace is trusted (reasonix trust)\n", process.stderr));
    if (scope === "project" && args.model) warn("a project profile's model is ignored; set [agent] subagent_models in your own config instead");
  },
});

const edit = defineCommand<EditArgs>({
  command: "edit <name>",
  describe: "Change the given fields of a subagent profile (an empty value clears --tools or --model)",
  builder: (y) => fieldOptions(y).example("reasonix subagent edit reviewer --model deepseek-pro", ""),
  run: async (args) => {
    const files = await import("../../core/agents/profile-files.ts");
    const { workspace, home } = await context(args.dir);
    const found = files.findProfileFile(args.name, { workspace, home }, args.scope);
    if (!found) throw new UsageError(`no subagent profile file named ${args.name}`);
    const cur = files.readProfile(found.path);
    const prompt = await readPrompt(args.promptFile);
    const tools = splitList(args.tools);
    const next = {
      description: args.description ?? cur.description,
      prompt: prompt ?? cur.prompt,
      ...(tools !== undefined ? (tools.length ? { tools } : {}) : cur.tools ? { tools: cur.tools } : {}),
      ...(args.model !== undefined ? (args.model ? { model: args.model } : {}) : cur.model ? { model: cur.model } : {}),
    };
    files.writeProfile(found.path, args.name, next);
    process.stdout.write(`updated ${bold(args.name)} ${dim(found.path)}\n`);
  },
});

const remove = defineCommand<{ name: string; yes: boolean; scope?: "project" | "global"; dir?: string }>({
  command: "delete <name>",
  describe: "Delete a subagent profile (needs --yes)",
  builder: (y) =>
    y.positional("name", { type: "string", demandOption: true }).option("yes", { alias: "y", type: "boolean", default: false, describe: "Really delete it" }).option("scope", scopeOption).option("dir", dirOption),
  run: async (args) => {
    const files = await import("../../core/agents/profile-files.ts");
    const { workspace, home } = await context(args.dir);
    const found = files.findProfileFile(args.name, { workspace, home }, args.scope);
    if (!found) throw new UsageError(`no subagent profile file named ${args.name}`);
    if (!args.yes) throw new UsageError(`delete removes ${found.path}; pass --yes to confirm`);
    files.deleteProfile(found.path);
    process.stdout.write(`deleted ${bold(args.name)} ${dim(found.path)}\n`);
  },
});

interface RunArgs { name: string; task: string; json: boolean; auto: boolean; dir?: string; trustProject: boolean }

function runner(readOnly: boolean) {
  return async (args: RunArgs) => {
    const { createEngine } = await import("../../core/engine/index.ts");
    const { workspace, cfg } = await context(args.dir);
    for (const w of cfg.warnings) warn(w);
    if (!args.task?.trim()) throw new UsageError("give the subagent a task");
    const engine = createEngine({
      workspace,
      config: cfg.values,
      configSources: cfg.sources,
      projectTrusted: cfg.trust.trusted,
      trustProject: args.trustProject,
      headless: true,
      ...(args.auto && !readOnly ? { permissionMode: "auto" as const } : {}),
    });
    const ac = new AbortController();
    const stop = () => ac.abort();
    process.once("SIGINT", stop);
    try {
      // Its steps on stderr as they happen (the answer alone goes to stdout).
      const onProgress = args.json ? undefined : (p: SubagentProgress) => process.stderr.write(`${dim(subagentLine(p), process.stderr)}\n`);
      const out = await engine.runSubagent(args.name, args.task, { readOnly, signal: ac.signal, ...(onProgress ? { onProgress } : {}) });
      if (args.json) printJson({ name: args.name, readOnly, ...out });
      else {
        if (out.answer) process.stdout.write(`${out.answer}\n`);
        process.stderr.write(dim(`subagent ${args.name}${readOnly ? " (read-only)" : ""}: session ${out.sessionId ?? "-"}, ${out.reason}\n`, process.stderr));
      }
      return out.ok ? 0 : 1;
    } finally {
      process.off("SIGINT", stop);
      await engine.close();
    }
  };
}

const runOptions = (y: any) =>
  y
    .positional("name", { type: "string", demandOption: true })
    .positional("task", { type: "string", demandOption: true })
    .option("json", { type: "boolean", default: false, describe: "Print the outcome as JSON" })
    .option("dir", dirOption)
    .option("trust-project", { type: "boolean", default: false, describe: "Count this workspace's files as approved for this run" });

const tryCmd = defineCommand<RunArgs>({
  command: "try <name> <task>",
  describe: "Run a profile on a task read-only (it cannot change anything, whatever it is told)",
  builder: (y) => runOptions(y).example('reasonix subagent try reviewer "review the current diff"', ""),
  run: runner(true),
});

const run = defineCommand<RunArgs>({
  command: "run <name> <task>",
  describe: "Run a profile on a task (headless: what needs approval is refused unless --auto)",
  builder: (y) =>
    runOptions(y)
      .option("auto", { alias: "y", type: "boolean", default: false, describe: "Allow writers and commands no rule holds back" })
      .example('reasonix subagent run reviewer "review and fix the current diff" --auto', ""),
  run: runner(false),
});

export default defineGroup(
  "subagent",
  "Subagent profiles: list, create, edit, try (read-only), run, delete",
  [list, create, edit, tryCmd, run, remove],
  (y) => y.epilog("Exit codes: 0 ok, 1 failure (the subagent did not finish), 2 usage error."),
);
