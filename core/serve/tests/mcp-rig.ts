// Shared set-up of the MCP registry/import serve tests (API and browser): the
// MCP Registry fixture on loopback (plus an entry only installable by hand),
// a stand-in npx in the workspace, a throw-away HOME with Claude Code and
// Cursor files (and a workspace .mcp.json someone else wrote), and a real
// `reasonix serve` (from source, or the compiled binary) over all of it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { probeSandbox } from "../../sandbox/index.ts";
import { bundleEverything, npxStandIn, sampleEntries, startRegistryFixture, type RegistryFixture } from "../../testing/mcp-registry.ts";
import { startScriptedOpenAI, type ScriptedServer } from "../../testing/scripted-llm.ts";
import { cleanup, repoRoot, startServe, tempDir, writeSecret, type ServeProc } from "./helpers.ts";
import { writeScriptedServeHome } from "./token-serve.ts";

export const everythingJs = join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const nodeBin = Bun.which("node") ?? "node";
const sandbox = await probeSandbox();

/** Why these tests cannot run here (said once as SKIPPED), or undefined. */
export function mcpSkip(what: string): boolean {
  const why = !existsSync(everythingJs) ? "the MCP reference servers are not installed (npm ci)" : !sandbox.available ? `the OS sandbox is unavailable (${sandbox.cause})` : undefined;
  if (why) console.warn(`SKIPPED ${what}: ${why}`);
  return !!why;
}

export const everythingVersion = existsSync(everythingJs) ? (JSON.parse(readFileSync(join(everythingJs, "../../package.json"), "utf8")) as { version: string }).version : "0";
/** The inline key in the Cursor file (moved to .env on import). */
export const INLINE_SECRET = "sk-inline-cursor-777";

export interface McpRig {
  dir: string;
  workspace: string;
  home: string;
  userHome: string;
  reg: RegistryFixture;
  llm: ScriptedServer;
  s: ServeProc;
  token: string;
  close(): Promise<void>;
}

const put = (file: string, text: string) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
};

export async function startMcpRig(o: { bin?: string } = {}): Promise<McpRig> {
  const token = "mcp-rig-token-0123456789abcdefghijkl";
  const dir = tempDir("mcp");
  const workspace = join(dir, "ws");
  const userHome = join(dir, "user");
  mkdirSync(workspace, { recursive: true });
  const llm = await startScriptedOpenAI([]);
  const reg = startRegistryFixture(sampleEntries("http://127.0.0.1:9/mcp", everythingVersion));
  // An entry with no source Reasonix installs: manual setup.
  reg.entries.push({ server: { name: "com.example/nuget-only", description: "A .NET tool", version: "1.0.0", websiteUrl: "https://nuget.example/tool", packages: [{ registryType: "nuget", identifier: "Example.Tool", transport: { type: "stdio" } }] } });
  const home = writeScriptedServeHome(dir, llm.url, `\n[mcp]\nstartup_grace_seconds = 60\nregistry_url = ${JSON.stringify(reg.url)}\n`);
  const shim = npxStandIn(workspace, everythingJs, nodeBin, everythingVersion);
  const everything = { command: nodeBin, args: [bundleEverything(shim, everythingJs), "stdio"] };
  put(join(userHome, ".claude.json"), JSON.stringify({ numStartups: 3, mcpServers: { "claude-everything": { type: "stdio", ...everything } } }));
  put(join(userHome, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { "cursor-everything": { ...everything, env: { EVERYTHING_API_KEY: INLINE_SECRET } } } }));
  put(join(workspace, ".mcp.json"), JSON.stringify({ mcpServers: { "ws-tool": { command: "sh", args: ["-c", "echo planted"] } } }));
  const s = await startServe(["--addr", "127.0.0.1:0", "--auth", "token", "--token-file", writeSecret(dir, "token", token), "--workspace", workspace], {
    home,
    bin: o.bin,
    env: { PATH: `${shim}:${process.env.PATH}`, HOME: userHome, XDG_STATE_HOME: join(dir, "state"), XDG_CONFIG_HOME: join(userHome, ".config"), CODEX_HOME: join(userHome, ".codex") },
  });
  return {
    dir, workspace, home, userHome, reg, llm, s, token,
    async close() {
      if (s.proc.exitCode === null) await s.stop();
      reg.close();
      await llm.close();
      cleanup(dir);
    },
  };
}
