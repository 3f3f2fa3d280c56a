// `reasonix mcp …`: the MCP servers this workspace declares (list, get,
// add, remove, test, auth, logout) and Reasonix as an MCP server (serve).
import { UsageError } from "../../core/errors.ts";
import { defineCommand, defineGroup } from "../command.ts";
import { bold, dim, green, printJson, red, yellow } from "../output.ts";
import serve from "./mcp-serve.ts";
import { importCommands } from "./mcp-import.ts";
import { registryCommands } from "./mcp-registry.ts";
import { findSpec, load, pairs, testAndPrint } from "./mcp-shared.ts";

const dirOption = { type: "string", describe: "Workspace directory (default: the current one)" } as const;

const list = defineCommand<{ json: boolean; dir?: string }>({
  command: "list",
  describe: "List the MCP servers this workspace declares (user config, .mcp.json, reasonix.toml); starts nothing",
  builder: (y) => y.option("json", { type: "boolean", default: false, describe: "Print as JSON" }).option("dir", dirOption),
  run: async (args) => {
    const { serverRows } = await import("../../core/mcp/report.ts");
    const { workspace, loaded } = await load(args.dir);
    const { rows, problems } = serverRows(loaded, workspace);
    if (args.json) return printJson({ workspace, servers: rows, problems });
    for (const p of problems) process.stderr.write(`${red("error")} ${p}\n`);
    if (rows.length === 0) {
      process.stderr.write("no MCP servers declared (add one: reasonix mcp add NAME -- CMD [ARGS…])\n");
      return problems.length ? 1 : 0;
    }
    for (const r of rows) {
      const state = r.state === "configured" ? green("configured") : r.state === "disabled" ? dim("disabled") : yellow(r.reason ?? "blocked");
      process.stdout.write(`${bold(r.name)}  ${dim(`${r.type} · ${r.scope}`)}  ${state}\n  ${r.target}${r.type === "stdio" && !r.sandbox ? yellow("  (unsandboxed)") : ""}\n`);
    }
    return problems.length ? 1 : 0;
  },
});

const get = defineCommand<{ name: string; json: boolean; dir?: string }>({
  command: "get <name>",
  describe: "Show one server's effective declaration and where it comes from",
  builder: (y) => y.positional("name", { type: "string", demandOption: true }).option("json", { type: "boolean", default: false, describe: "Print as JSON" }).option("dir", dirOption),
  run: async (args) => {
    const { spec, shadowed } = await findSpec(args.name, args.dir);
    // Values as written (`${VAR}` unexpanded): secrets stay out of the output.
    const out = { ...spec, shadows: shadowed.map((s) => ({ scope: s.scope, file: s.file })) };
    if (args.json) return printJson(out);
    const { targetOf } = await import("../../core/mcp/report.ts");
    process.stdout.write(`${bold(spec.name)}  ${dim(`${spec.type} · ${spec.scope} · ${spec.file}`)}\n`);
    process.stdout.write(`  target   ${targetOf(spec)}\n`);
    if (spec.cwd) process.stdout.write(`  cwd      ${spec.cwd}\n`);
    for (const k of Object.keys(spec.env)) process.stdout.write(`  env      ${k}=${spec.env[k]}\n`);
    for (const k of Object.keys(spec.headers)) process.stdout.write(`  header   ${k}: ${spec.headers[k]}\n`);
    process.stdout.write(`  enabled  ${spec.enabled}${spec.type === "stdio" ? `   sandbox ${spec.sandbox}` : ""}\n`);
    process.stdout.write(`  timeouts startup ${spec.startupTimeoutMs / 1000} s, call ${spec.callTimeoutMs / 1000} s\n`);
    if (spec.blocked) process.stdout.write(`  ${yellow(spec.blocked)}\n`);
    for (const s of shadowed) process.stdout.write(dim(`  hides the ${s.scope} declaration in ${s.file}\n`));
  },
});

const add = defineCommand<{ name: string; cmd?: string[]; url?: string; type?: string; header?: string[]; env?: string[]; project: boolean }>({
  command: "add <name> [cmd..]",
  describe: "Declare an MCP server in your user config (or the project's reasonix.toml with --project)",
  builder: (y) =>
    y
      .usage("reasonix mcp add NAME [--project] [--env K=V]… -- CMD [ARGS…]\nreasonix mcp add NAME --url URL [--type http|sse] [--header K=V]…")
      .positional("name", { type: "string", demandOption: true })
      .positional("cmd", { type: "string", array: true, describe: "command and arguments of a stdio server (after --)" })
      .option("url", { type: "string", describe: "URL of an http or sse server" })
      .option("type", { type: "string", choices: ["stdio", "http", "sse"], describe: "Transport (default: stdio, or http with --url)" })
      .option("header", { type: "string", array: true, describe: "HTTP header K=V (repeatable; ${VAR} expands at connect time)" })
      .option("env", { type: "string", array: true, describe: "Environment variable K=V for a stdio server (repeatable)" })
      .option("project", { type: "boolean", default: false, describe: "Write to ./reasonix.toml (starts only once the workspace is trusted)" })
      .example("reasonix mcp add fs -- npx -y @modelcontextprotocol/server-filesystem .", "a local stdio server")
      .example('reasonix mcp add stripe --url https://mcp.stripe.com --header "Authorization=Bearer ${STRIPE_KEY}"', "a remote server") as never,
  run: async (args) => {
    const { addServer, configFileFor } = await import("../../core/mcp/edit.ts");
    const argv = [...(args.cmd ?? []), ...args._.slice(2)].map(String);
    const type = (args.type ?? (args.url ? "http" : "stdio")) as "stdio" | "http" | "sse";
    if (type === "stdio" && args.url) throw new UsageError("--url needs --type http or sse");
    if (type !== "stdio" && argv.length) throw new UsageError(`a ${type} server takes no command`);
    const file = configFileFor({ project: args.project });
    addServer({ name: args.name, type, command: argv[0], args: argv.slice(1), env: pairs(args.env, "--env"), url: args.url, headers: pairs(args.header, "--header") }, file);
    process.stdout.write(`added MCP server ${bold(args.name)} to ${file}\n`);
    if (args.project) process.stdout.write(dim("project servers start only in a trusted workspace: review and run `reasonix trust`\n"));
    else process.stdout.write(dim(`check it: reasonix mcp test ${args.name}\n`));
  },
});

const remove = defineCommand<{ name: string; project: boolean }>({
  command: "remove <name>",
  describe: "Remove a server from your user config (or ./reasonix.toml with --project), with its sign-in state",
  builder: (y) => y.positional("name", { type: "string", demandOption: true }).option("project", { type: "boolean", default: false, describe: "Remove it from ./reasonix.toml" }),
  run: async (args) => {
    const { configFileFor, removeServer } = await import("../../core/mcp/edit.ts");
    const file = configFileFor({ project: args.project });
    const before = await findSpec(args.name).catch(() => undefined);
    if (!removeServer(args.name, file)) throw new UsageError(`no [[plugins]] entry named "${args.name}" in ${file}`, args.project ? undefined : "a project declaration? use --project (or edit .mcp.json)");
    process.stdout.write(`removed MCP server ${bold(args.name)} from ${file}\n`);
    // Its sign-in goes too, unless the declaration now in effect uses the same URL.
    const url = before?.spec.url;
    if (url) {
      const after = await findSpec(args.name).catch(() => undefined);
      if (after?.spec.url !== url) {
        const { clearOAuth, oauthStatePath } = await import("../../core/mcp/oauth.ts");
        const { homePaths } = await import("../../core/home.ts");
        if (clearOAuth(oauthStatePath(homePaths().home, url))) process.stdout.write(dim("removed its saved sign-in\n"));
      }
    }
  },
});

const toggle = (on: boolean) =>
  defineCommand<{ name: string; project: boolean }>({
    command: `${on ? "enable" : "disable"} <name>`,
    describe: on ? "Start a server again (drops enabled = false from its entry)" : "Keep a server declared but do not start it (enabled = false)",
    builder: (y) => y.positional("name", { type: "string", demandOption: true }).option("project", { type: "boolean", default: false, describe: "Edit ./reasonix.toml instead of your user config" }),
    run: async (args) => {
      const { configFileFor, setServerEnabled } = await import("../../core/mcp/edit.ts");
      const file = configFileFor({ project: args.project });
      setServerEnabled(args.name, on, file);
      process.stdout.write(`${on ? "enabled" : "disabled"} MCP server ${bold(args.name)} in ${file}\n`);
    },
  });

const test = defineCommand<{ name: string; json: boolean; dir?: string }>({
  command: "test <name>",
  describe: "Start one server, initialize, list its tools, prompts and resources, with timings (its stderr on failure)",
  builder: (y) => y.positional("name", { type: "string", demandOption: true }).option("json", { type: "boolean", default: false, describe: "Print as JSON" }).option("dir", dirOption),
  run: async (args) => {
    const r = await testAndPrint(args.name, args);
    if (args.json) printJson(r.report ?? { name: args.name, ok: false, status: "blocked", error: r.blocked });
    return r.code;
  },
});

const auth = defineCommand<{ name: string; open: boolean }>({
  command: "auth <name>",
  describe: "Sign in to an http/sse server with OAuth (discovery, dynamic registration, PKCE); opens your browser",
  builder: (y) => y.positional("name", { type: "string", demandOption: true }).option("open", { type: "boolean", default: true, describe: "Open the browser (--no-open: print the URL only)" }),
  run: async (args) => {
    const { spec, loaded } = await findSpec(args.name);
    const { authorize } = await import("../../core/mcp/auth-flow.ts");
    const { openBrowser } = await import("../open-browser.ts");
    const r = await authorize(spec, {
      home: loaded.home,
      openUrl: async (u) => {
        process.stdout.write(`open this page to sign in:\n  ${u.href}\n`);
        if (args.open) await openBrowser(u.href).catch(() => {});
      },
    });
    process.stdout.write(`${green("signed in")} to ${bold(spec.name)} (${r.tools} tools)\n`);
  },
});

const logout = defineCommand<{ name: string }>({
  command: "logout <name>",
  describe: "Forget a server's OAuth tokens and client registration (the browser session stays)",
  builder: (y) => y.positional("name", { type: "string", demandOption: true }),
  run: async (args) => {
    const { spec, loaded } = await findSpec(args.name);
    if (!spec.url) throw new UsageError(`MCP server "${spec.name}" has no URL; nothing to sign out of`);
    const { clearOAuth, oauthStatePath } = await import("../../core/mcp/oauth.ts");
    const { expandSpec, expansionEnv } = await import("../../core/mcp/config.ts");
    const removed = clearOAuth(oauthStatePath(loaded.home, expandSpec(spec, expansionEnv(spec, loaded.home, process.env)).url!));
    process.stdout.write(removed ? `signed out of ${bold(spec.name)}\n` : `no saved sign-in for ${spec.name}\n`);
  },
});

export default defineGroup("mcp", "MCP servers: list, add, remove, test, sign in, browse and install from the MCP Registry, import from other agents; and `mcp serve` to offer Reasonix to other agents", [list, get, add, remove, toggle(true), toggle(false), test, auth, logout, ...registryCommands, ...importCommands, serve]);
