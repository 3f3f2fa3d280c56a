import { existsSync } from "node:fs";
import { docsAssets, sandboxProfileAssets } from "./assets/index.ts";
import { errorMessage } from "./errors.ts";
import { homePaths, reasonixHome } from "./home.ts";
import { leafKeys, loadConfig, projectConfigPath, readConfigFile } from "./config/load.ts";
import { sandboxDoctorCheck } from "./sandbox/doctor.ts";
import { buildInfo, platformId } from "./version.ts";
import { trustReport, type TrustReport } from "./trust/report.ts";

export interface DoctorReport {
  version: ReturnType<typeof buildInfo> & { platform: string };
  home: string;
  configFiles: { scope: "user" | "project"; path: string; exists: boolean; keys: string[] }[];
  configErrors: string[];
  tools: { name: string; found: boolean; path?: string; note?: string }[];
  assets: Record<string, string>;
  warnings: string[];
  /** The workspace's trust: approved project files, and settings waiting for approval. */
  trust?: TrustReport;
}

/** Checks other modules contribute: the bash sandbox probe reports here too. */
export type DoctorCheck = () => Promise<{ name: string; found: boolean; path?: string; note?: string }>;
const doctorChecks: DoctorCheck[] = [sandboxDoctorCheck];

export async function diagnose(cwd = process.cwd()): Promise<DoctorReport> {
  const home = reasonixHome();
  const warnings: string[] = [];
  const configErrors: string[] = [];
  const configFiles: DoctorReport["configFiles"] = [];
  for (const [scope, path] of [["user", homePaths(home).config], ["project", projectConfigPath(cwd)]] as const) {
    try {
      const f = readConfigFile(path, scope, warnings);
      configFiles.push({ scope, path, exists: !!f, keys: f ? leafKeys(f.data) : [] });
    } catch (e) {
      configFiles.push({ scope, path, exists: existsSync(path), keys: [] });
      configErrors.push(errorMessage(e));
    }
  }
  const tools: DoctorReport["tools"] = [];
  for (const name of ["ssh", "bwrap", "sandbox-exec", "rg", "git"]) {
    const path = Bun.which(name) ?? (name === "sandbox-exec" && existsSync("/usr/bin/sandbox-exec") ? "/usr/bin/sandbox-exec" : null);
    tools.push({ name, found: !!path, ...(path ? { path } : {}) });
  }
  for (const check of doctorChecks) {
    try { tools.push(await check()); } catch (e) { warnings.push(errorMessage(e)); }
  }
  let trust: TrustReport | undefined;
  if (configErrors.length === 0) {
    try { loadConfig({ cwd, home }); } catch (e) { configErrors.push(errorMessage(e)); }
    try { trust = trustReport(cwd, home); } catch (e) { warnings.push(errorMessage(e)); }
  }
  return {
    version: { ...buildInfo(), platform: platformId() },
    home,
    configFiles,
    configErrors,
    tools,
    assets: { docs: docsAssets.digest, "sandbox-profiles": sandboxProfileAssets.digest },
    warnings,
    ...(trust ? { trust } : {}),
  };
}
