/**
 * The interactive provider setup every front end shares: `reasonix setup` on
 * a terminal, the terminal chat on first use (no provider yet). The front end
 * supplies the prompts (SetupIO); this module decides what to ask and writes
 * nothing until the end: the key to $REASONIX_HOME/.env, the entry and
 * default_model to the user config.
 */
import { isIP } from "node:net";
import { CancelledError, UsageError } from "../errors.ts";
import { reasonixHome } from "../home.ts";
import type { ProviderConfig } from "../providers/types.ts";
import { testConnection, type ConnectionResult } from "./connection.ts";
import { PRESETS, keyEnvFor, presetEntryFields, type Preset } from "./presets.ts";
import { ENV_NAME_RE, PROVIDER_NAME_RE, addProvider, checkEntry, hasKey, providerStatuses, storeKey } from "./providers.ts";

export interface SetupIO {
  say(text: string): void;
  /** Pick one option; resolves to its index. */
  choose(question: string, options: string[], defaultIndex?: number): Promise<number>;
  /** One visible line; an empty answer gives `defaultValue` when there is one. */
  ask(question: string, defaultValue?: string): Promise<string>;
  /** One line that is never echoed. */
  askSecret(question: string): Promise<string>;
}

export interface WizardResult {
  name: string;
  model: string;
  configPath: string;
  dotenvPath?: string;
  test: ConnectionResult;
}

/** How many times a question is asked again after an unusable answer. */
const TRIES = 3;
const URL_QUESTION = "Base URL of the OpenAI-compatible API (e.g. http://127.0.0.1:8000/v1)";

function urlProblem(v: string): string | null {
  try {
    const u = new URL(v);
    return u.protocol === "http:" || u.protocol === "https:" ? null : `"${v}" must be http:// or https://`;
  } catch {
    return `"${v}" is not a URL`;
  }
}
/** Longer model lists are typed rather than picked from a menu. */
const MENU_MAX = 20;

async function askValid(io: SetupIO, question: string, def: string | undefined, check: (v: string) => string | null): Promise<string> {
  for (let i = 0; i < TRIES; i++) {
    const v = (await io.ask(question, def)).trim() || def || "";
    const problem = check(v);
    if (!problem) return v;
    io.say(problem);
  }
  throw new UsageError(`setup cancelled: no usable answer to "${question}"`);
}

const describeResult = (r: ConnectionResult): string =>
  r.ok
    ? `connected in ${r.latencyMs} ms (${r.method === "models" ? `${r.models?.length ?? 0} models listed` : "one-token request answered"})`
    : `connection failed after ${r.latencyMs} ms: ${r.error}`;

export async function runSetupWizard(io: SetupIO, opts: { home?: string; timeoutMs?: number } = {}): Promise<WizardResult> {
  const home = opts.home ?? reasonixHome();
  const current = providerStatuses(home);
  if (current.providers.length) {
    io.say(`Configured in ${current.path}: ${current.providers.map((p) => `${p.name}${p.isDefault ? " (default)" : ""}${p.hasKey ? "" : " [key missing]"}`).join(", ")}`);
  } else io.say(`No model provider is configured yet; this adds one to ${current.path}.`);
  const taken = new Set(current.providers.map((p) => p.name));

  const preset: Preset = PRESETS[await io.choose("Which provider?", PRESETS.map((p) => p.label), 0)]!;
  let baseUrl = preset.baseUrl;
  let kind: ProviderConfig["kind"] = preset.kind;
  if (!baseUrl) {
    baseUrl = await askValid(io, URL_QUESTION, undefined, urlProblem);
    kind = ["openai", "anthropic"][await io.choose("Wire protocol?", ["OpenAI Chat Completions", "Anthropic Messages"], 0)]!;
  }
  let suggested = preset.id === "custom" ? nameFromUrl(baseUrl) : preset.id;
  for (let n = 2; taken.has(suggested) && n < 100; n++) suggested = `${suggested.replace(/-\d+$/, "")}-${n}`;
  const name = await askValid(io, "Name for this provider", suggested, (v) =>
    !PROVIDER_NAME_RE.test(v) ? `"${v}": use letters, digits, '.', '_' and '-'` : taken.has(v) ? `"${v}" is already configured; pick another name` : null);

  // The key: none for local servers; asked (hidden) otherwise, unless one is stored and kept.
  let keyEnv = preset.keyEnv;
  let key: string | undefined;
  if (preset.id === "custom") {
    const needs = await io.choose("Does this API need a key?", ["yes", "no"], 0);
    if (needs === 0) keyEnv = await askValid(io, "Variable to store the key under", keyEnvFor(name), (v) => (ENV_NAME_RE.test(v) ? null : `"${v}" is not a variable name`));
  }
  if (keyEnv && hasKey(keyEnv, home) && (await io.choose(`A key is already stored as ${keyEnv} in ${current.dotenv}.`, ["keep it", "enter a new key"], 0)) === 0) key = undefined;
  else if (keyEnv) key = await askKey(io, preset, keyEnv);

  const entry: ProviderConfig = { name, kind, base_url: baseUrl, ...(preset.model ? { model: preset.model } : {}), ...(keyEnv ? { api_key_env: keyEnv } : {}), ...presetEntryFields(preset, preset.model) };
  let test: ConnectionResult;
  for (let attempt = 0; ; attempt++) {
    io.say(`Testing ${baseUrl} …`);
    test = await testConnection(entry, { home, key, timeoutMs: opts.timeoutMs });
    io.say(describeResult(test));
    if (test.ok) break;
    const retry = attempt < TRIES;
    const options = [
      // Nothing answered there (refused, no such host, timed out): the URL is the likely mistake.
      ...(retry && test.errorKind === "network" ? ["change the URL"] : []),
      ...(keyEnv && retry ? ["enter the key again"] : []),
      ...(!entry.model && retry ? ["type a model id and test with a one-token request"] : []),
      "save it anyway",
      "cancel",
    ];
    const pick = options[await io.choose("What now?", options, 0)];
    if (pick === "cancel") throw new CancelledError("setup cancelled; nothing was written");
    if (pick === "save it anyway") break;
    if (pick === "change the URL") entry.base_url = baseUrl = await askValid(io, URL_QUESTION, baseUrl, urlProblem);
    else if (pick === "enter the key again") key = await askKey(io, preset, keyEnv!);
    else entry.model = await askValid(io, "Model id", undefined, (v) => (v && !/\s/.test(v) ? null : "type the model id the API expects"));
  }

  // A model typed for the one-token test that then answered is the choice; otherwise pick (or type) one now.
  if (!(test.ok && test.method === "chat" && entry.model)) entry.model = await pickModel(io, test.models ?? [], entry.model ?? preset.model);
  // The catalog's limits belong to the model finally picked.
  delete entry.context_window;
  delete entry.vision;
  Object.assign(entry, presetEntryFields(preset, entry.model));
  checkEntry(entry);
  const dotenvPath = keyEnv && key !== undefined ? storeKey(keyEnv, key, home) : undefined;
  const { path } = addProvider(entry, { home, makeDefault: true });
  io.say(`Saved "${name}" (${entry.model}) to ${path}${dotenvPath ? `, its key as ${keyEnv} in ${dotenvPath} (mode 0600)` : ""}; default_model = "${name}".`);
  return { name, model: entry.model!, configPath: path, ...(dotenvPath ? { dotenvPath } : {}), test };
}

/** "https://api.example.com/v1" → "example"; an address or localhost → "local". */
function nameFromUrl(url: string): string {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) || host === "localhost") return "local";
  return host.split(".").find((p) => p !== "api" && p !== "www" && PROVIDER_NAME_RE.test(p)) ?? "custom";
}

async function askKey(io: SetupIO, preset: Preset, env: string): Promise<string> {
  for (let i = 0; i < TRIES; i++) {
    const k = (await io.askSecret(`${preset.label === "Any OpenAI-compatible URL" ? "API" : preset.label} key (stored as ${env}; input hidden): `)).trim();
    if (k && !/[\r\n]/.test(k)) return k;
    io.say("The key is empty; paste it and press Enter (Ctrl-C cancels).");
  }
  throw new UsageError("setup cancelled: no key entered");
}

async function pickModel(io: SetupIO, listed: string[], preferred: string | undefined): Promise<string> {
  const models = [...new Set(listed)].sort();
  if (preferred && models.includes(preferred)) {
    models.splice(models.indexOf(preferred), 1);
    models.unshift(preferred);
  }
  if (models.length > 0 && models.length <= MENU_MAX) {
    const other = "another model id…";
    const i = await io.choose("Which model?", [...models, other], 0);
    if (i < models.length) return models[i]!;
  } else if (models.length > MENU_MAX) {
    io.say(`${models.length} models available, e.g. ${models.slice(0, 5).join(", ")}`);
  }
  const model = await askValid(io, "Model id", preferred ?? models[0], (v) => (v && !/\s/.test(v) ? null : "type the model id the API expects"));
  if (models.length && !models.includes(model)) io.say(`note: "${model}" is not among the models the endpoint lists`);
  return model;
}
