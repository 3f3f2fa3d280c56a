// The `reasonix doctor` line for the bash sandbox.
import type { DoctorCheck } from "../doctor-check.ts";
import { loadConfig } from "../config/load.ts";
import { probeSandbox } from "./probe.ts";

export const sandboxDoctorCheck: DoctorCheck = async () => {
  let mode = "enforce";
  try {
    mode = ((loadConfig().values.sandbox as { bash?: string } | undefined)?.bash ?? "enforce") as string;
  } catch {
    // Config errors are reported by doctor itself.
  }
  if (mode === "off") return { name: "sandbox", found: true, note: 'sandbox.bash = "off": bash runs unconfined (no probe)' };
  const s = await probeSandbox();
  if (s.available) return { name: "sandbox", found: true, path: s.path, note: `${s.backend}${s.version ? ` ${s.version}` : ""} works; bash is confined` };
  return { name: "sandbox", found: false, note: `bash will refuse to run: ${s.cause}. Fix: ${s.fix}` };
};
