import { existsSync, statSync } from "node:fs";
import { docsAssets, sandboxProfileAssets } from "./assets/index.ts";
import { errorMessage } from "./errors.ts";
import { homePaths, reasonixHome } from "./home.ts";
import { leafKeys, loadConfig, projectConfigPath, readConfigFile, type LoadedConfig } from "./config/load.ts";
import { entryModels, providerEntries } from "./providers/config.ts";
import { SecretStore } from "./secrets/dotenv.ts";
import { defaultProvider } from "./setup/providers.ts";
import { sandboxDoctorCheck } from "./sandbox/doctor.ts";
import type { DoctorCheck } from "./doctor-check.ts";
import { buildInfo, platformId } from "./version.ts";
import { crashDir, listIds } from "./crash/store.ts";
import { summaryLine, telemetrySummary, type TelemetrySummary } from "./telemetry/summary.ts";
import { trustReport, type TrustReport } from "./trust/report.ts";
import { plural } from "./plural.ts";

/** fail: the agent cannot run until it is fixed (doctor exits 1); warn: it runs, something is off. */
export type CheckStatus = "ok" | "warn" | "fail";

export interface CheckResult {
  id: string;
  label: string;
  status: CheckStatus;
  detail: string;
  hint?: string;
}

export interface DoctorReport {
  version: ReturnType<typeof buildInfo> & { platform: string };
  home: string;
  /** False when any check failed: something blocks the agent. */
  ok: boolean;
  /** Every check in display order. */
  checks: CheckResult[];
  configFiles: { scope: "user" | "project"; path: string; exists: boolean; keys: string[] }[];
  configErrors: string[];
  tools: { name: string; found: boolean; path?: string; note?: string }[];
  assets: Record<string, string>;
  warnings: string[];
  /** The workspace's trust: approved project files, and settings waiting for approval. */
  trust?: TrustReport;
  /** Crash reports kept locally, waiting for `reasonix report` (never sent on their own). */
  crashReports: { pending: number; dir: string };
  /** The effective usage-counter mode (docs/telemetry.md). */
  telemetry: TelemetrySummary;
  /** How long the checks took (no network is touched). */
  elapsedMs: number;
}

/** Checks other modules contribute: the bash sandbox probe reports here too. */
export type { DoctorCheck };
const doctorChecks: DoctorCheck[] = [sandboxDoctorCheck];

/** Tools worth naming on this platform only (no sandbox-exec on Linux, no bwrap on macOS). */
const platformTools = (platform: NodeJS.Platform): { name: string; why: string }[] => [
  { name: "git", why: "the agent's git commands and project checks need it" },
  { name: "rg", why: "the search tool is slower without ripgrep" },
  { name: "ssh", why: "hosts with use_ssh_config = true are resolved with `ssh -G`" },
  ...(platform === "linux" ? [{ name: "bwrap", why: "bash runs inside bubblewrap" }] : []),
  ...(platform === "darwin" ? [{ name: "sandbox-exec", why: "bash runs inside Seatbelt" }] : []),
];

export async function diagnose(cwd = process.cwd(), home = reasonixHome()): Promise<DoctorReport> {
  const started = performance.now();
  const checks: CheckResult[] = [];
  const add = (id: string, label: string, status: CheckStatus, detail: string, hint?: string) => checks.push({ id, label, status, detail, ...(hint ? { hint } : {}) });
  const warnings: string[] = [];
  const configErrors: string[] = [];
  const configFiles: DoctorReport["configFiles"] = [];

  const homeIsDir = !existsSync(home) || statSync(home).isDirectory();
  add("home", "home", homeIsDir ? "ok" : "fail", home, homeIsDir ? undefined : "it must be a directory (or unset REASONIX_HOME)");

  for (const [scope, path] of [["user", homePaths(home).config], ["project", projectConfigPath(cwd)]] as const) {
    try {
      const f = readConfigFile(path, scope, warnings);
      configFiles.push({ scope, path, exists: !!f, keys: f ? leafKeys(f.data) : [] });
      add(`${scope}-config`, `${scope} config`, "ok", `${path}${f ? ` (${f.data && leafKeys(f.data).length ? leafKeys(f.data).join(", ") : "empty"})` : " (absent)"}`);
    } catch (e) {
      configFiles.push({ scope, path, exists: existsSync(path), keys: [] });
      configErrors.push(errorMessage(e));
      add(`${scope}-config`, `${scope} config`, "fail", errorMessage(e), "fix the file (the error names file:line), or move it aside");
    }
  }

  let loaded: LoadedConfig | undefined;
  let trust: TrustReport | undefined;
  if (configErrors.length === 0) {
    try {
      loaded = loadConfig({ cwd, home });
    } catch (e) {
      configErrors.push(errorMessage(e));
      add("config", "config", "fail", errorMessage(e));
    }
    try { trust = trustReport(cwd, home); } catch (e) { warnings.push(errorMessage(e)); }
  }
  for (const w of loaded?.warnings ?? warnings) add("config-warning", "config", "warn", w);

  providerChecks(loaded, home, add);

  if (trust && trust.inputs.length > 0) {
    const waiting = trust.loosening.length ? `; ${plural(trust.loosening.length, "setting")} ${trust.loosening.length === 1 ? "waits" : "wait"} for approval: ${trust.loosening.map((l) => l.key).join(", ")}` : "";
    add("trust", "trust", trust.trusted || !waiting ? "ok" : "warn", trust.trusted ? `${trust.workspace}: project files approved` : `${trust.workspace}: not trusted${waiting}`, trust.trusted || !waiting ? undefined : "reasonix trust");
  } else if (trust) add("trust", "trust", "ok", `${trust.workspace}: ships no project files`);

  const tools: DoctorReport["tools"] = [];
  for (const { name, why } of platformTools(process.platform)) {
    const path = Bun.which(name) ?? (name === "sandbox-exec" && existsSync("/usr/bin/sandbox-exec") ? "/usr/bin/sandbox-exec" : null);
    tools.push({ name, found: !!path, ...(path ? { path } : {}) });
    add(`tool-${name}`, name, path ? "ok" : "warn", path ?? `not found: ${why}`);
  }
  for (const check of doctorChecks) {
    try {
      const t = await check();
      tools.push(t);
      // The probe says found=false only when sandbox.bash = "enforce" and no backend works: bash would refuse.
      const off = !!t.note?.startsWith('sandbox.bash = "off"');
      add(t.name, t.name, !t.found ? "fail" : off ? "warn" : "ok", t.note ?? t.path ?? "");
    } catch (e) {
      warnings.push(errorMessage(e));
      add("sandbox", "sandbox", "warn", `could not probe: ${errorMessage(e)}`);
    }
  }
  const assets = { docs: docsAssets.digest, "sandbox-profiles": sandboxProfileAssets.digest };
  for (const [name, digest] of Object.entries(assets)) add(`asset-${name}`, name, "ok", digest);
  const crashReports = { pending: listIds(home).length, dir: crashDir(home) };
  add("crash-reports", "crash reports", "ok", crashReports.pending ? `${crashReports.pending} pending in ${crashReports.dir}` : "none pending", crashReports.pending ? "review, send or delete them: reasonix report" : undefined);
  const telemetry = telemetrySummary(home, loaded?.values ?? {});
  add("telemetry", "telemetry", "ok", summaryLine(telemetry));
  return {
    version: { ...buildInfo(), platform: platformId() },
    home,
    ok: !checks.some((c) => c.status === "fail"),
    checks,
    configFiles,
    configErrors,
    tools,
    assets,
    warnings: loaded?.warnings ?? warnings,
    ...(trust ? { trust } : {}),
    crashReports,
    telemetry,
    elapsedMs: Math.round(performance.now() - started),
  };
}

type Add = (id: string, label: string, status: CheckStatus, detail: string, hint?: string) => void;

/** Is there a provider the agent can use, with its key? (Names the real files, never "$REASONIX_HOME".) */
function providerChecks(loaded: LoadedConfig | undefined, home: string, add: Add): void {
  const { config, dotenv } = homePaths(home);
  if (!loaded) {
    add("providers", "providers", "fail", "unknown: the config does not load (see above)");
    return;
  }
  let entries;
  try {
    entries = providerEntries(loaded.values, config);
  } catch (e) {
    add("providers", "providers", "fail", errorMessage(e), `fix the entry in ${config}, or replace it: reasonix setup`);
    return;
  }
  if (entries.length === 0) {
    add("providers", "providers", "fail", `no [[providers]] in ${config}: the agent has no model to talk to`, "run `reasonix setup` (or `reasonix setup add NAME --preset P`)");
    return;
  }
  add("providers", "providers", "ok", entries.map((e) => e.name).join(", "));
  let keys = new Map<string, string>();
  try {
    keys = new SecretStore(dotenv).read();
  } catch (e) {
    add("keys", "keys", "fail", errorMessage(e), `fix or remove ${dotenv}`);
    return;
  }
  const wanted = typeof loaded.values.default_model === "string" ? loaded.values.default_model : undefined;
  const def = defaultProvider({ path: config, dotenv, providers: entries, defaultModel: wanted });
  if (!def) {
    add("default", "default model", "fail", `default_model "${wanted}" matches no [[providers]] entry (known: ${entries.map((e) => e.name).join(", ")})`, "reasonix setup default NAME");
    return;
  }
  const src = loaded.sources.get("default_model");
  const from = wanted ? `default_model${src && src !== "default" ? ` in ${src}` : ""}` : "first entry";
  if (def.api_key_env && !keys.get(def.api_key_env)) {
    // Exported in the shell is the newcomer's usual first try: say that it was seen and why it does not count.
    const inShell = process.env[def.api_key_env] ? ` (${def.api_key_env} is set in your shell, which Reasonix ignores on purpose: commands the agent runs would see it)` : "";
    add("default", "default model", "fail", `${def.name} (${from}): ${def.api_key_env} has no value in ${dotenv}${inShell}`, `store it: reasonix setup key ${def.name}`);
  } else {
    add("default", "default model", "ok", `${def.name}: ${entryModels(def)[0]} (${from}; ${def.api_key_env ? `key ${def.api_key_env} stored` : "no key needed"})`);
  }
  for (const e of entries) {
    if (e !== def && e.api_key_env && !keys.get(e.api_key_env)) add("key", "key", "warn", `${e.name}: ${e.api_key_env} has no value in ${dotenv}`, `reasonix setup key ${e.name}`);
  }
}
