// Shared bits of the MCP CLI tests: the reference servers from node_modules
// and a config block that declares them.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { probeSandbox } from "../../core/sandbox/index.ts";
import { repoRoot } from "./run-helpers.ts";

export const everythingJs = join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const filesystemJs = join(repoRoot, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
/** node, to run the servers (their own runtime, as a user's `npx` would). */
export const nodeBin = Bun.which("node") ?? "node";

export const haveServers = existsSync(everythingJs) && existsSync(filesystemJs);
export const sandboxStatus = await probeSandbox();

/** True (after a SKIPPED line naming WHAT) when the reference servers or the OS sandbox are missing. */
export function skipWithoutServers(what: string): boolean {
  if (!haveServers) console.warn(`SKIPPED ${what}: the MCP reference servers are not installed (npm ci)`);
  else if (!sandboxStatus.available) console.warn(`SKIPPED ${what}: the OS sandbox is unavailable (${sandboxStatus.cause})`);
  return !haveServers || !sandboxStatus.available;
}

export const tomlString = (s: string) => JSON.stringify(s);

export function pluginToml(name: string, o: { command?: string; args?: string[]; type?: string; url?: string; env?: Record<string, string>; extra?: string[] }): string {
  const lines = ["", "[[plugins]]", `name = ${tomlString(name)}`];
  if (o.type) lines.push(`type = ${tomlString(o.type)}`);
  if (o.command) lines.push(`command = ${tomlString(o.command)}`);
  if (o.args) lines.push(`args = [${o.args.map(tomlString).join(", ")}]`);
  if (o.url) lines.push(`url = ${tomlString(o.url)}`);
  if (o.env) lines.push(`env = { ${Object.entries(o.env).map(([k, v]) => `${k} = ${tomlString(v)}`).join(", ")} }`);
  lines.push(...(o.extra ?? []));
  return `${lines.join("\n")}\n`;
}

/** The [mcp] grace long enough for a cold node server on a busy test machine. */
export const graceToml = "\n[mcp]\nstartup_grace_seconds = 60\n";
