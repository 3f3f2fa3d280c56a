import { defineCommand } from "../command.ts";
import { bold, dim, green, printJson, red, warn } from "../output.ts";

export default defineCommand<{ json: boolean }>({
  command: "doctor",
  describe: "Check this machine: home, config files, tools, sandbox, embedded assets",
  builder: (y) => y.option("json", { type: "boolean", default: false, describe: "Print as JSON" }),
  run: async (args) => {
    const { diagnose } = await import("../../core/doctor.ts");
    const report = await diagnose();
    if (args.json) return printJson(report);
    const line = (ok: boolean, label: string, detail: string) =>
      process.stdout.write(`${ok ? green("ok  ") : red("--  ")}${label.padEnd(14)} ${dim(detail)}\n`);
    process.stdout.write(`${bold(`reasonix ${report.version.version}`)} ${dim(report.version.platform)}\n`);
    line(true, "home", report.home);
    for (const f of report.configFiles) line(f.exists, `${f.scope} config`, `${f.path}${f.exists ? ` (${f.keys.length ? f.keys.join(", ") : "empty"})` : " (absent)"}`);
    for (const e of report.configErrors) line(false, "config", e);
    const t = report.trust;
    if (t && t.inputs.length > 0) {
      const waiting = t.loosening.length ? `; ${t.loosening.length} setting(s) wait for approval: ${t.loosening.map((l) => l.key).join(", ")}` : "";
      line(t.trusted, "trust", t.trusted ? `${t.workspace}: project files approved` : `${t.workspace}: not trusted${waiting} (reasonix trust)`);
    } else if (t) line(true, "trust", `${t.workspace}: ships no project files`);
    for (const t of report.tools) line(t.found, t.name, t.path ?? t.note ?? "not found");
    for (const [name, digest] of Object.entries(report.assets)) line(true, name, digest);
    for (const w of report.warnings) warn(w);
  },
});
