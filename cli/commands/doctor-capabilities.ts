// `reasonix doctor capabilities`: what this workspace adds to the agent —
// slash commands and skills (with shadowing and what is not loaded) and hooks.
import { bold, dim, printJson, yellow } from "../output.ts";

export async function runCapabilities(args: { json: boolean; dir?: string; live?: boolean }): Promise<number> {
  const { loadConfig } = await import("../../core/config/load.ts");
  const { resolveWorkspace } = await import("../../core/engine/engine.ts");
  const { capabilitiesReport } = await import("../../core/commands/report.ts");
  const workspace = resolveWorkspace(args.dir ?? process.cwd());
  const cfg = loadConfig({ cwd: workspace });
  const report = capabilitiesReport({ workspace, home: cfg.home, values: cfg.values, sources: cfg.sources });
  const mcp = await (await import("./doctor-mcp.ts")).mcpCapabilities(workspace, cfg, !!args.live);
  if (args.json) {
    printJson({ workspace, ...report, mcp: mcp.report });
    return mcp.code;
  }
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out(`${bold("Commands and skills")} ${dim(`(${workspace})`)}`);
  const width = Math.min(28, Math.max(8, ...report.commands.map((c) => c.name.length + 1)));
  for (const c of report.commands) {
    const how = c.kind === "skill" ? `skill, ${c.invocation}${c.runAs === "subagent" ? ", runAs subagent" : ""}` : c.kind;
    out(`  /${c.name.padEnd(width)} ${c.description} ${dim(`[${how}; ${c.scope}: ${c.source}]`)}`);
  }
  if (report.shadowed.length) {
    out(bold("Shadowed"));
    for (const s of report.shadowed) out(`  /${s.name} (${s.scope}: ${s.source}) ${yellow("is shadowed by")} ${s.byScope}: ${s.by}${s.reachableAs ? ` ${dim(`— still reachable as /${s.reachableAs}`)}` : ""}`);
  }
  if (report.notLoaded.length) {
    out(bold("Not loaded"));
    for (const n of report.notLoaded) out(`  /${n.name} ${dim(`(${n.kind}, ${n.scope}: ${n.source})`)} ${yellow(n.reason)}`);
  }
  out(bold("Hooks"));
  if (report.hooks.length === 0) out(dim("  none ([[hooks]] in config.toml, or .reasonix/hooks.toml in a trusted workspace)"));
  for (const h of report.hooks) {
    out(`  ${h.event}${h.matcher ? `(${h.matcher})` : ""} ${h.command} ${dim(`[${h.timeoutSeconds} s; ${h.scope}: ${h.source}]`)}${h.loaded ? "" : ` ${yellow(h.reason ?? "not loaded")}`}`);
  }
  mcp.print(out);
  return mcp.code;
}
