// Pieces the `reasonix mcp …` commands share: loading the workspace's
// config, finding one declared server, KEY=VALUE flags, and printing a
// live test (`mcp test`, and `mcp install/import` after writing).
import { UsageError } from "../../core/errors.ts";
import type { TestReport } from "../../core/mcp/report.ts";
import { bold, dim, green, red } from "../output.ts";

export const load = async (dir?: string) => {
  const { loadConfig } = await import("../../core/config/load.ts");
  const { realWorkspace } = await import("../../core/trust/index.ts");
  const { resolve } = await import("node:path");
  const workspace = realWorkspace(resolve(dir ?? process.cwd()));
  return { workspace, loaded: loadConfig({ cwd: workspace }) };
};

export async function findSpec(name: string, dir?: string) {
  const { resolveServers } = await import("../../core/mcp/config.ts");
  const { workspace, loaded } = await load(dir);
  const r = resolveServers(loaded, workspace);
  const spec = r.servers.find((s) => s.name === name);
  if (!spec) {
    const known = r.servers.map((s) => s.name);
    throw new UsageError(`no MCP server named "${name}"`, known.length ? `known: ${known.join(", ")}` : "add one: reasonix mcp add NAME -- CMD [ARGS…]");
  }
  return { spec, workspace, loaded, shadowed: r.shadowed.filter((s) => s.name === name) };
}

export const pairs = (list: string[] | undefined, flag: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const p of list ?? []) {
    const i = p.indexOf("=");
    if (i <= 0) throw new UsageError(`${flag} ${p}: expected KEY=VALUE`);
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
};

/** Start a declared server once and print what it offers (exit code 0/1). */
export async function testAndPrint(name: string, o: { json: boolean; dir?: string }): Promise<{ code: number; report?: TestReport; blocked?: string }> {
  const { spec, workspace, loaded } = await findSpec(name, o.dir);
  if (spec.blocked) {
    if (!o.json) process.stderr.write(`${red("not started")} ${spec.name}: ${spec.blocked}\n`);
    return { code: 1, blocked: spec.blocked };
  }
  const { testServer } = await import("../../core/mcp/report.ts");
  const r = await testServer(spec, { workspace, home: loaded.home, config: loaded.values });
  if (!o.json) printTest(r);
  return { code: r.ok ? 0 : 1, report: r };
}

export function printTest(r: TestReport): void {
  if (!r.ok) {
    process.stderr.write(`${red("FAIL")} ${r.name}: ${r.error}\n`);
    if (r.stderr && !r.error?.includes(r.stderr.split("\n").at(-1)!)) process.stderr.write(dim(`stderr:\n${r.stderr}\n`));
    return;
  }
  const t = r.timings;
  process.stdout.write(`${green("ok")} ${bold(r.name)} ${dim(`${r.server ? `${r.server.name} ${r.server.version} · ` : ""}${r.backend} · initialize ${t.connect} ms, lists ${t.list} ms`)}\n`);
  process.stdout.write(`tools (${r.tools.length}):\n${r.tools.map((x) => `  ${x.name}${x.readOnly ? dim(" (read-only)") : ""}`).join("\n")}\n`);
  if (r.prompts.length) process.stdout.write(`prompts (${r.prompts.length}): ${r.prompts.map((p) => `/mcp__${r.name}__${p}`).join(", ")}\n`);
  if (r.resources.length) process.stdout.write(`resources (${r.resources.length}): ${r.resources.slice(0, 10).join(", ")}${r.resources.length > 10 ? " …" : ""}\n`);
}
