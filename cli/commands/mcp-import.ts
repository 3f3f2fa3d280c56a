// `reasonix mcp import [names..]`: the MCP servers configured in the user's
// other agents (Claude Code, Claude Desktop, Cursor, VS Code, Codex, Gemini
// CLI, Windsurf), listed, picked, and written to the user config like
// `reasonix mcp add` (inline secrets moved to $REASONIX_HOME/.env).
import { UsageError } from "../../core/errors.ts";
import type { Candidate, candidateRow } from "../../core/mcp/import/candidates.ts";
import { visible } from "../../core/trust/describe.ts";
import { defineCommand } from "../command.ts";
import { bold, dim, green, printJson, useColor, yellow } from "../output.ts";
import { load, testAndPrint } from "./mcp-shared.ts";

async function candidates(dir?: string): Promise<{ list: Candidate[]; problems: string[]; file: string }> {
  const { importCandidates } = await import("../../core/mcp/import/candidates.ts");
  const { configFileFor } = await import("../../core/mcp/edit.ts");
  const { homedir } = await import("node:os");
  const { workspace } = await load(dir);
  const file = configFileFor({});
  return { ...importCandidates(process.env.HOME || homedir(), workspace, file), file };
}

// Other programs' files (a workspace's among them) are shown through visible(): no control characters reach the terminal.
const where = (c: Candidate) => visible(`${c.found.agent} · ${c.found.file}`);

const importCmd = defineCommand<{ names?: string[]; all: boolean; json: boolean; list: boolean; test: boolean; dir?: string }>({
  command: "import [names..]",
  describe: "Import MCP servers from Claude Code, Claude Desktop, Cursor, VS Code, Codex, Gemini CLI and Windsurf into your user config",
  builder: (y) =>
    y
      .positional("names", { type: "string", array: true, describe: "servers to import (as listed); none: pick on the terminal" })
      .option("all", { type: "boolean", default: false, describe: "Import every server of your own agents' configs (not the workspace's files)" })
      .option("list", { type: "boolean", default: false, describe: "Only list what was found (no picker, no writes)" })
      .option("test", { type: "boolean", default: false, describe: "Start each imported server once and list its tools" })
      .option("json", { type: "boolean", default: false, describe: "Print as JSON (with no names and no --all: the list only)" })
      .option("dir", { type: "string", describe: "Workspace whose .mcp.json / .vscode/mcp.json to read (default: the current one)" })
      .example("reasonix mcp import", "pick on the terminal")
      .example("reasonix mcp import --all --json", "import everything, for scripts") as never,
  run: async (args) => {
    const { list, problems, file } = await candidates(args.dir);
    const { candidateRow: row, candidateTarget: targetOf } = await import("../../core/mcp/import/candidates.ts");
    const names = (args.names ?? []).map(String);
    for (const p of problems) if (!args.json) process.stderr.write(`${yellow("warning")} ${p}\n`);
    const importable = list.filter((c) => !c.skip);
    let chosen: Candidate[];
    if (names.length) {
      const unknown = names.filter((n) => !list.some((c) => c.plan.server.name === n));
      if (unknown.length) throw new UsageError(`not found in any agent's config: ${unknown.join(", ")}`, list.length ? `found: ${list.map((c) => c.plan.server.name).join(", ")}` : undefined);
      chosen = list.filter((c) => names.includes(c.plan.server.name));
      const refused = chosen.filter((c) => c.skip);
      if (refused.length) throw new UsageError(refused.map((c) => `${c.plan.server.name}: ${c.skip}`).join("; "));
    } else if (args.all) {
      // A workspace's files are someone else's input: --all takes only the user's own agents.
      chosen = importable.filter((c) => !c.found.project);
      const held = importable.filter((c) => c.found.project).map((c) => c.plan.server.name);
      if (held.length && !args.json) process.stderr.write(dim(`not imported by --all (declared by this workspace; name them to import): ${held.join(", ")}\n`));
    }
    else if (args.json || args.list || !process.stdin.isTTY) {
      if (args.json) return printJson({ servers: list.map(row), problems });
      if (!list.length) process.stderr.write("no MCP servers found in the other agents' configs\n");
      for (const c of list) process.stdout.write(`${bold(c.plan.server.name)}  ${dim(`${c.plan.server.type} · ${where(c)}`)}${c.skip ? yellow(`  (${visible(c.skip)})`) : ""}\n  ${visible(targetOf(c))}\n`);
      if (importable.length) process.stdout.write(dim(`import: reasonix mcp import NAME… (or --all)\n`));
      return 0;
    } else {
      if (!list.length) return void process.stderr.write("no MCP servers found in the other agents' configs\n");
      const { pickMany } = await import("../picker.ts");
      const items = list.map((c) => ({ label: visible(`${c.plan.server.name}  ${c.plan.server.type}  ${targetOf(c)}`), detail: `${where(c)}${c.found.project ? " (this workspace)" : ""}`, disabled: c.skip && visible(c.skip) }));
      chosen = (await pickMany("MCP servers found in your other agents:", items, { color: useColor(process.stderr) })).map((i) => list[i]!);
    }
    const { addServerWithSecrets } = await import("../../core/mcp/edit.ts");
    const { homePaths } = await import("../../core/home.ts");
    const dotenv = homePaths().dotenv;
    const results: (ReturnType<typeof candidateRow> & { imported: boolean; test?: unknown })[] = [];
    for (const c of chosen) {
      addServerWithSecrets(c.plan.server, c.plan.secrets, file, dotenv);
      results.push({ ...row(c), imported: true });
      if (!args.json) process.stdout.write(`${green("imported")} ${bold(c.plan.server.name)} ${dim(`from ${where(c)}`)}${Object.keys(c.plan.secrets).length ? dim(`; secrets moved to ${dotenv}: ${Object.keys(c.plan.secrets).join(", ")}`) : ""}\n`);
    }
    if (!chosen.length && !args.json) process.stderr.write("nothing imported\n");
    let code = 0;
    if (args.test) {
      for (const r of results) {
        const t = await testAndPrint(r.name, { json: args.json });
        r.test = t.report ?? { ok: false, status: "blocked", error: t.blocked };
        code ||= t.code;
      }
    } else if (chosen.length && !args.json) process.stdout.write(dim(`written to ${file}; check one: reasonix mcp test ${chosen[0]!.plan.server.name}\n`));
    if (args.json) printJson({ imported: results, file, problems });
    return code;
  },
});

export const importCommands = [importCmd];
