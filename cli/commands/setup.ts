// `reasonix setup`: the provider wizard on a terminal, and add/test/list/
// remove/default/key for scripts. Providers live in the user config only;
// keys in $REASONIX_HOME/.env (0600).
import type { Argv, CommandModule } from "yargs";
import { defineCommand, type GroupModule } from "../command.ts";
import { bold, dim, green, printJson, red, warn } from "../output.ts";

const PRESET_IDS = ["openai", "anthropic", "deepseek", "openrouter", "groq", "ollama", "lmstudio", "custom"];

interface AddArgs {
  name: string; preset?: string; kind?: string; baseUrl?: string; model?: string; keyEnv?: string; keyStdin: boolean; default: boolean; test: boolean; json: boolean;
}

const add = defineCommand<AddArgs>({
  command: "add <name>",
  describe: "Add a provider without questions: --preset P, or --kind K --base-url URL --model M",
  builder: (y) =>
    y
      .positional("name", { type: "string", demandOption: true, describe: "Name default_model and --model refer to" })
      .option("preset", { type: "string", choices: PRESET_IDS, describe: "Known service: endpoint, protocol and key variable filled in" })
      .option("kind", { type: "string", choices: ["openai", "anthropic", "responses"], describe: "Wire protocol (default: the preset's, else openai)" })
      .option("base-url", { type: "string", describe: "API base URL (overrides the preset's)" })
      .option("model", { type: "string", describe: "Model id (default: the preset's suggestion)" })
      .option("key-env", { type: "string", describe: "Variable in $REASONIX_HOME/.env holding the key (default: the preset's, e.g. OPENAI_API_KEY)" })
      .option("key-stdin", { type: "boolean", default: false, describe: "Read the API key from stdin and store it (never echoed)" })
      .option("default", { type: "boolean", default: false, describe: "Make it default_model (automatic when none is set)" })
      .option("test", { type: "boolean", default: false, describe: "Test the connection after adding (exit 1 when it fails)" })
      .option("json", { type: "boolean", default: false, describe: "Print the result as JSON" })
      .example("$0 setup add ds --preset deepseek --key-stdin < key.txt", "")
      .example("$0 setup add local --preset ollama --model qwen3:8b", "")
      .example("$0 setup add proxy --base-url https://llm.example.com/v1 --model m1 --key-env PROXY_API_KEY", "") as unknown as Argv<AddArgs>,
  run: async (a) => {
    const { entryFromInput } = await import("../../core/setup/entry.ts");
    const { addProvider, checkEntry, hasKey, storeKey } = await import("../../core/setup/providers.ts");
    const { entry } = entryFromInput({ name: a.name, preset: a.preset, kind: a.kind, baseUrl: a.baseUrl, model: a.model, keyEnv: a.keyEnv, withKey: a.keyStdin });
    const keyEnv = entry.api_key_env;
    const model = entry.model!;
    // Read (and check) everything before writing anything.
    checkEntry(entry);
    let key: string | undefined;
    if (a.keyStdin) {
      const { readStdinSecret } = await import("../hidden-input.ts");
      key = await readStdinSecret("key");
    }
    const { path, isDefault } = addProvider(entry, { makeDefault: a.default });
    const dotenv = key !== undefined ? storeKey(keyEnv!, key) : undefined;
    const missingKey = !!keyEnv && key === undefined && !hasKey(keyEnv);
    let test;
    if (a.test) {
      const { testConnection } = await import("../../core/setup/connection.ts");
      test = await testConnection(entry);
    }
    if (a.json) printJson({ config: path, ...entry, default: isDefault, ...(dotenv ? { keyStored: dotenv } : {}), keyMissing: missingKey, ...(test ? { test } : {}) });
    else {
      process.stderr.write(`added ${bold(a.name)} (${entry.kind}, ${model}) to ${path}${isDefault ? "; it is default_model" : ""}\n`);
      if (dotenv) process.stderr.write(`stored the key as ${keyEnv} in ${dotenv} (mode 0600)\n`);
      if (missingKey) warn(`no key stored as ${keyEnv} yet: reasonix setup key ${a.name} (or add again with --key-stdin)`);
      if (test) printTest(a.name, test);
    }
    return test && !test.ok ? 1 : 0;
  },
});

function printTest(name: string, r: import("../../core/setup/connection.ts").ConnectionResult): void {
  if (r.ok) {
    const what = r.method === "models" ? `${r.models?.length ?? 0} models listed` : "one-token request answered";
    process.stdout.write(`${green("ok")} ${name}: connected in ${r.latencyMs} ms (${what})\n`);
  } else {
    process.stdout.write(`${red("failed")} ${name} after ${r.latencyMs} ms: ${r.error}\n`);
  }
}

const test = defineCommand<{ name?: string; json: boolean; timeout: number; models: boolean }>({
  command: "test [name]",
  describe: "Reach a provider once: list its models (or a one-token request); shows latency and the exact error",
  builder: (y) =>
    y
      .positional("name", { type: "string", describe: "Provider name (default: default_model's)" })
      .option("timeout", { type: "number", default: 15, describe: "Seconds to wait for an answer" })
      .option("models", { type: "boolean", default: false, describe: "Also print the listed model ids" })
      .option("json", { type: "boolean", default: false, describe: "Print the result as JSON" }),
  run: async (a) => {
    const { UsageError } = await import("../../core/errors.ts");
    const { defaultProvider, userProviders } = await import("../../core/setup/providers.ts");
    const { testConnection } = await import("../../core/setup/connection.ts");
    const u = userProviders();
    const entry = a.name ? u.providers.find((p) => p.name === a.name) : defaultProvider(u);
    if (!entry) {
      const known = u.providers.map((p) => p.name);
      throw new UsageError(a.name ? `no provider named "${a.name}" in ${u.path}` : `no provider is configured in ${u.path}`, known.length ? `known: ${known.join(", ")}` : "add one with: reasonix setup");
    }
    if (!(a.timeout > 0)) throw new UsageError(`--timeout ${a.timeout}: expected a positive number of seconds`);
    const r = await testConnection(entry, { timeoutMs: a.timeout * 1000 });
    if (a.json) printJson({ name: entry.name, baseUrl: entry.base_url, ...r });
    else {
      printTest(entry.name, r);
      if (a.models && r.models) for (const m of r.models) process.stdout.write(`  ${m}\n`);
    }
    return r.ok ? 0 : 1;
  },
});

const list = defineCommand<{ json: boolean }>({
  command: ["list", "ls"],
  describe: "List configured providers, the default and whether each has its key",
  builder: (y) => y.option("json", { type: "boolean", default: false, describe: "Print as JSON" }),
  run: async (a) => {
    const { providerStatuses } = await import("../../core/setup/providers.ts");
    const s = providerStatuses();
    if (a.json) return printJson(s);
    if (s.providers.length === 0) {
      process.stderr.write(`no providers in ${s.path}; add one with: reasonix setup\n`);
      return;
    }
    for (const p of s.providers) {
      const key = p.keyEnv ? (p.hasKey ? dim(`key ${p.keyEnv}`) : red(`key ${p.keyEnv} missing`)) : dim("no key needed");
      process.stdout.write(`${p.isDefault ? "*" : " "} ${bold(p.name)}  ${p.kind}  ${p.baseUrl}  ${p.models.join(", ")}  ${key}\n`);
    }
  },
});

const remove = defineCommand<{ name: string }>({
  command: ["remove <name>", "rm <name>"],
  describe: "Remove a provider from the user config (its key stays in .env)",
  builder: (y) => y.positional("name", { type: "string", demandOption: true }),
  run: async (a) => {
    const { removeProvider } = await import("../../core/setup/providers.ts");
    const r = removeProvider(a.name);
    process.stderr.write(`removed ${bold(a.name)} from ${r.path}\n`);
    if (r.newDefault) process.stderr.write(`default_model is now "${r.newDefault}"\n`);
    if (r.newDefault === null) warn("no provider is left: the agent cannot run until you add one (reasonix setup)");
  },
});

const setDefault = defineCommand<{ name: string }>({
  command: "default <name>",
  describe: "Set default_model to a configured provider",
  builder: (y) => y.positional("name", { type: "string", demandOption: true }),
  run: async (a) => {
    const { setDefaultProvider } = await import("../../core/setup/providers.ts");
    const r = setDefaultProvider(a.name);
    process.stderr.write(`${r.path}: default_model = "${a.name}"\n`);
  },
});

const effort = defineCommand<{ name: string; level: string }>({
  command: "effort <name> <level>",
  describe: "Set the reasoning effort a provider's sessions start with (reasoning_effort; \"default\" clears it)",
  builder: (y) => y.positional("name", { type: "string", demandOption: true }).positional("level", { type: "string", demandOption: true }),
  run: async (a) => {
    const { setProviderEffort } = await import("../../core/setup/providers.ts");
    const r = setProviderEffort(a.name, a.level === "default" ? undefined : a.level);
    process.stderr.write(`${r.path}: ${a.name}: ${a.level === "default" ? "reasoning_effort removed" : `reasoning_effort = "${a.level}"`}\n`);
  },
});

const key = defineCommand<{ name: string; keyStdin: boolean }>({
  command: "key <name>",
  describe: "Store (or replace) a provider's API key: hidden prompt on a terminal, or --key-stdin",
  builder: (y) =>
    y.positional("name", { type: "string", demandOption: true }).option("key-stdin", { type: "boolean", default: false, describe: "Read the key from stdin" }) as unknown as Argv<{ name: string; keyStdin: boolean }>,
  run: async (a) => {
    const { UsageError } = await import("../../core/errors.ts");
    const { storeKey, userProviders } = await import("../../core/setup/providers.ts");
    const u = userProviders();
    const entry = u.providers.find((p) => p.name === a.name);
    if (!entry) throw new UsageError(`no provider named "${a.name}" in ${u.path}`);
    if (!entry.api_key_env) throw new UsageError(`provider "${a.name}" has no api_key_env: it is used without a key`, `set one: reasonix setup remove ${a.name}, then add it again with --key-env VAR`);
    const { readHidden, readStdinSecret } = await import("../hidden-input.ts");
    const value = a.keyStdin ? await readStdinSecret("key") : await readHidden(`${a.name} key (stored as ${entry.api_key_env}; input hidden): `);
    const path = storeKey(entry.api_key_env, value);
    process.stderr.write(`stored the key as ${entry.api_key_env} in ${path} (mode 0600)\n`);
  },
});

const subcommands: CommandModule<any, any>[] = [add, test, list, remove, setDefault, effort, key];

const setup: GroupModule = {
  subcommands,
  command: "setup",
  describe: "Set up a model provider: a guided wizard on a terminal (add/test/list/remove/default/key for scripts)",
  builder: (y) => y.command(subcommands).option("timeout", { type: "number", default: 15, global: false, describe: "Seconds the connection test waits" }),
  handler: async (args) => {
    const { runInteractiveSetup } = await import("../setup-prompts.ts");
    await runInteractiveSetup({ timeoutMs: Number(args.timeout ?? 15) * 1000 });
  },
};

export default setup;
