// Make sure services/accounts/node_modules matches its package-lock.json:
// the root `npm ci` does not install the service's own dependencies.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const serviceDir = join(import.meta.dir, "..");

function installedMatchesLock(): boolean {
  const marker = join(serviceDir, "node_modules", ".package-lock.json");
  if (!existsSync(marker) || !existsSync(join(serviceDir, "node_modules", "workerd", "package.json"))) return false;
  try {
    const want = JSON.parse(readFileSync(join(serviceDir, "package-lock.json"), "utf8")).packages ?? {};
    const have = JSON.parse(readFileSync(marker, "utf8")).packages ?? {};
    return Object.entries(want).every(([k, v]) => k === "" || (v as { optional?: boolean }).optional || (have[k] as { version?: string } | undefined)?.version === (v as { version?: string }).version);
  } catch {
    return false;
  }
}

/** Install when missing or stale; returns null when ready, else the reason it is not. */
export function ensureDeps(log: (s: string) => void = (s) => process.stderr.write(s)): string | null {
  if (installedMatchesLock()) return null;
  log("accounts: installing services/accounts dependencies (npm ci)...\n");
  const r = Bun.spawnSync(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: serviceDir, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) return `npm ci in services/accounts failed (exit ${r.exitCode}): ${r.stderr.toString().trim().split("\n").slice(-3).join(" | ")}`;
  return installedMatchesLock() ? null : "npm ci in services/accounts finished but node_modules does not match package-lock.json";
}
