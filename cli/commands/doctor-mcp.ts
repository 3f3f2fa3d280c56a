// The MCP part of `reasonix doctor capabilities`: declared servers (static,
// nothing starts) and, with --live, one start of each with its tools.
import type { LoadedConfig } from "../../core/config/load.ts";
import { bold, dim, green, red, yellow } from "../output.ts";

export async function mcpCapabilities(workspace: string, cfg: LoadedConfig, live: boolean) {
  const { serverRows, testServer } = await import("../../core/mcp/report.ts");
  const { resolveServers } = await import("../../core/mcp/config.ts");
  const { rows, problems } = serverRows(cfg, workspace);
  let results: Awaited<ReturnType<typeof testServer>>[] = [];
  if (live) {
    const specs = resolveServers(cfg, workspace).servers.filter((s) => !s.blocked && s.enabled);
    results = await Promise.all(specs.map((s) => testServer(s, { workspace, home: cfg.home, config: cfg.values })));
  }
  const failedLive = results.filter((r) => !r.ok).length;
  const report = { servers: rows, problems, ...(live ? { live: results } : {}) };
  const print = (out: (s: string) => void) => {
    out(`${bold("MCP servers")}${live ? "" : dim(" (static; --live starts them)")}`);
    for (const p of problems) out(`  ${red("error")} ${p}`);
    if (rows.length === 0) out(dim("  none ([[plugins]] in config.toml or reasonix.toml, or .mcp.json; see reasonix docs show mcp.md)"));
    for (const r of rows) {
      const state = r.state === "configured" ? "" : ` ${yellow(r.reason ?? r.state)}`;
      const shadows = r.shadows.length ? dim(` — hides ${r.shadows.map((s) => `${s.scope}: ${s.file}`).join(", ")}`) : "";
      out(`  ${r.name} ${dim(`[${r.type}; ${r.scope}: ${r.file}]`)} ${r.target}${state}${shadows}`);
      const t = results.find((x) => x.name === r.name);
      if (t) out(t.ok ? `    ${green("started")} ${dim(`${t.timings.total} ms, ${t.tools.length} tools, ${t.prompts.length} prompts, ${t.resources.length} resources`)}` : `    ${red("failed")} ${t.error}`);
    }
  };
  return { report, print, code: problems.length || failedLive ? 1 : 0 };
}
