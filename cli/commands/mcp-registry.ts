// `reasonix mcp browse [query]` and `reasonix mcp install <name>[@version]`:
// the MCP Registry ([mcp] registry_url), read only when one of these runs.
import { UsageError } from "../../core/errors.ts";
import { noSourceReason, sourceKinds, type InstallPlan, type PlanInput } from "../../core/mcp/registry/plan.ts";
import type { Stale } from "../../core/mcp/registry/client.ts";
import type { RegistryServer } from "../../core/mcp/registry/schema.ts";
import { visible } from "../../core/trust/describe.ts";
import { defineCommand } from "../command.ts";
import { bold, dim, printJson, yellow } from "../output.ts";
import { load, pairs, testAndPrint } from "./mcp-shared.ts";

async function registryOptions(timeout?: number) {
  const { loaded } = await load();
  const { registryOptionsOf } = await import("../../core/mcp/registry/options.ts");
  return registryOptionsOf(loaded, timeout ? timeout * 1000 : undefined);
}

const staleNote = (s: Stale) => process.stderr.write(yellow(`${s.error}; showing the answer saved ${s.fetchedAt} (stale)\n`));

// Everything the registry sends is printed through visible(): no control characters reach the terminal.
const kinds = (s: RegistryServer) => visible(sourceKinds(s).join(" · ") || "no install method");

const timeoutOption = { type: "number", describe: "Seconds to wait for the registry (default 15)" } as const;

const browse = defineCommand<{ query?: string; json: boolean; limit: number; cursor?: string; timeout?: number }>({
  command: "browse [query]",
  describe: "Search the MCP Registry ([mcp] registry_url); a page at a time",
  builder: (y) =>
    y
      .positional("query", { type: "string", describe: "words in the server's name" })
      .option("json", { type: "boolean", default: false, describe: "Print as JSON (servers, nextCursor, stale)" })
      .option("limit", { type: "number", default: 20, describe: "Servers per page" })
      .option("cursor", { type: "string", describe: "The next page: the cursor the previous page printed" })
      .option("timeout", timeoutOption)
      .example("reasonix mcp browse github", "servers with github in their name") as never,
  run: async (args) => {
    if (!(args.limit >= 1 && args.limit <= 100)) throw new UsageError("--limit must be 1 to 100");
    const { listServers } = await import("../../core/mcp/registry/client.ts");
    const page = await listServers({ ...(await registryOptions(args.timeout)), search: args.query, limit: args.limit, cursor: args.cursor });
    if (args.json) return printJson({ servers: page.servers, nextCursor: page.nextCursor ?? null, stale: page.stale ?? null });
    if (page.stale) staleNote(page.stale);
    if (page.servers.length === 0) process.stderr.write(`no servers${args.query ? ` match "${args.query}"` : ""}\n`);
    for (const s of page.servers) {
      const status = s.status && s.status !== "active" ? yellow(` (${visible(s.status)})`) : "";
      process.stdout.write(`${bold(visible(s.name))}  ${dim(`${visible(s.version)} · ${kinds(s)}`)}${status}\n  ${visible(s.description)}\n`);
    }
    if (page.nextCursor) process.stdout.write(dim(`more: reasonix mcp browse${args.query ? ` ${JSON.stringify(args.query)}` : ""} --cursor ${JSON.stringify(page.nextCursor)}\n`));
    if (page.servers.length) process.stdout.write(dim(`install one: reasonix mcp install NAME\n`));
  },
});

/** `name@version`: the registry name has a `/`; a version is after the last `@` that follows it. */
function splitVersion(spec: string): { name: string; version?: string } {
  const at = spec.lastIndexOf("@");
  return at > spec.indexOf("/") && at > 0 ? { name: spec.slice(0, at), version: spec.slice(at + 1) } : { name: spec };
}

const FLAG: Record<PlanInput["kind"], string> = { env: "--env", header: "--header", arg: "--arg", variable: "--var" };
const describeInput = (i: PlanInput) =>
  `${FLAG[i.kind]} ${visible(i.key)}=…${i.required ? "" : dim(" (optional)")}${i.secret ? dim(" (secret)") : ""}${i.description ? `  ${dim(visible(i.description))}` : ""}`;

/** Ask on the terminal for each open input without an answer; Enter skips an optional one. */
async function ask(inputs: PlanInput[], answers: Record<PlanInput["kind"], Record<string, string>>): Promise<void> {
  const { readHidden, readLine } = await import("../hidden-input.ts");
  for (const i of inputs) {
    if (answers[i.kind][i.key] !== undefined) continue;
    const label = visible(`${i.key}${i.description ? ` (${i.description})` : ""}${i.choices ? ` [${i.choices.join("/")}]` : ""}${i.default ? ` [${i.default}]` : ""}`) + `${i.required ? "" : " (optional, Enter skips)"}: `;
    const v = i.secret ? await readHidden(label) : await readLine(label);
    if (v !== "") answers[i.kind][i.key] = v;
  }
}

function manualSetup(s: RegistryServer, name: string, plan: InstallPlan | undefined): string {
  const lines = [`${bold(visible(s.name))} was not installed: it needs setup by hand.`];
  if (!plan) {
    lines.push(`  ${visible(noSourceReason(s))}`);
    if (s.websiteUrl || s.repository) lines.push(`  see ${visible(s.websiteUrl ?? s.repository ?? "")}, then: reasonix mcp add ${name} -- CMD [ARGS…]`);
    return `${lines.join("\n")}\n`;
  }
  lines.push(`  source: ${visible(plan.source)}`, "  values it needs:");
  for (const m of plan.missing) lines.push(`    ${describeInput(m)}`);
  const others = plan.inputs.filter((i) => !plan.missing.includes(i));
  if (others.length) lines.push("  it also takes:", ...others.map((i) => `    ${describeInput(i)}`));
  lines.push(`  give them as flags (or run it on a terminal to be asked): reasonix mcp install ${visible(s.name)} ${plan.missing.map((m) => `${describeInput(m).split("=")[0]}=…`).join(" ")}`);
  return `${lines.join("\n")}\n`;
}

const install = defineCommand<{ name: string; as?: string; env?: string[]; header?: string[]; arg?: string[]; var?: string[]; remote: boolean; json: boolean; timeout?: number; test: boolean }>({
  command: "install <name>",
  describe: "Add a server from the MCP Registry to your user config, asking for the values it needs, then start it once",
  builder: (y) =>
    y
      .usage("reasonix mcp install REGISTRY-NAME[@VERSION] [--as NAME] [--env K=V]… [--header K=V]… [--arg K=V]… [--var K=V]…")
      .positional("name", { type: "string", demandOption: true, describe: "the server's registry name (io.github.owner/server), optionally @version" })
      .option("as", { type: "string", describe: "Local name (default: the part after the last /)" })
      .option("env", { type: "string", array: true, describe: "Value of one of its environment variables K=V (repeatable)" })
      .option("header", { type: "string", array: true, describe: "Value of one of a remote's headers K=V (repeatable)" })
      .option("arg", { type: "string", array: true, describe: "Value of one of its arguments, by flag or label, K=V (repeatable)" })
      .option("var", { type: "string", array: true, describe: "Value of one of a remote URL's {variables} K=V (repeatable)" })
      .option("remote", { type: "boolean", default: false, describe: "Prefer the entry's remote (http/sse) over a local package" })
      .option("test", { type: "boolean", default: true, describe: "Start it once and list its tools (--no-test: just write the config)" })
      .option("json", { type: "boolean", default: false, describe: "Print the result as JSON" })
      .option("timeout", timeoutOption)
      .example("reasonix mcp install io.github.example/weather --env WEATHER_API_KEY=…", "a package that needs a key") as never,
  run: async (args) => {
    const { getServer } = await import("../../core/mcp/registry/client.ts");
    const { localNameOf, planInstall } = await import("../../core/mcp/registry/plan.ts");
    const { addServerWithSecrets, configFileFor, serverNames } = await import("../../core/mcp/edit.ts");
    const { name: regName, version } = splitVersion(args.name);
    const s = await getServer({ ...(await registryOptions(args.timeout)), name: regName, version });
    if (s.stale && !args.json) staleNote(s.stale);
    const name = args.as ?? localNameOf(s.name);
    const file = configFileFor({});
    if (serverNames(file).includes(name)) throw new UsageError(`an MCP server named "${name}" already exists in ${file}`, `choose another name with --as, or remove it: reasonix mcp remove ${name}`);
    const answers = { env: pairs(args.env, "--env"), header: pairs(args.header, "--header"), arg: pairs(args.arg, "--arg"), variable: pairs(args.var, "--var") };
    let plan = planInstall(s, name, answers, args.remote);
    if (plan && plan.inputs.length && process.stdin.isTTY && !args.json) {
      await ask(plan.inputs, answers);
      plan = planInstall(s, name, answers, args.remote);
    }
    if (!plan || plan.missing.length) {
      if (args.json) printJson({ name, registryName: s.name, version: s.version, installed: false, source: plan?.source ?? null, missing: plan?.missing ?? [], inputs: plan?.inputs ?? [], stale: s.stale ?? null });
      else process.stderr.write(manualSetup(s, name, plan));
      return 1;
    }
    const { homePaths } = await import("../../core/home.ts");
    addServerWithSecrets(plan.server, plan.secrets, file, homePaths().dotenv);
    const base = { name, registryName: s.name, version: s.version, installed: true, source: plan.source, file, secrets: Object.keys(plan.secrets), stale: s.stale ?? null };
    if (!args.json) {
      const runs = plan.server.type === "stdio" ? [plan.server.command, ...(plan.server.args ?? [])].join(" ") : plan.server.url;
      process.stdout.write(`installed ${bold(visible(s.name))} ${visible(s.version)} as MCP server ${bold(name)} in ${file} ${dim(`(${visible(plan.source)})`)}\n  ${visible(runs ?? "")}\n`);
      if (base.secrets.length) process.stdout.write(dim(`secrets saved in ${homePaths().dotenv}: ${base.secrets.join(", ")}\n`));
    }
    if (!args.test) return args.json ? printJson(base) : undefined;
    const t = await testAndPrint(name, { json: args.json });
    if (args.json) printJson({ ...base, test: t.report ?? { ok: false, status: "blocked", error: t.blocked } });
    else if (t.code) process.stderr.write(dim(`the server stays in your config: fix it and run reasonix mcp test ${name}, or reasonix mcp remove ${name}\n`));
    return t.code;
  },
});

export const registryCommands = [browse, install];
