// Drives the real CLI (`bun cli/main.ts run …`) as a child process against a
// scripted LLM server, with a throw-away $REASONIX_HOME and workspace.
import { join, resolve } from "node:path";
import { makeScriptedHome } from "../../core/testing/scripted-home.ts";

export const repoRoot = resolve(import.meta.dir, "../..");
export const mainTs = join(repoRoot, "cli/main.ts");

export interface CliEnv {
  home: string;
  workspace: string;
  env: Record<string, string>;
  cleanup(): void;
}

export function makeCliEnv(providerUrl: string, opts: { kind?: "openai" | "anthropic"; extraToml?: string } = {}): CliEnv {
  const sh = makeScriptedHome(providerUrl, { prefix: "reasonix-run-test-", key: "sk-cli-test", ...opts });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  // English whatever this machine's locale (the tests read the interface text; chat-language tests set it).
  Object.assign(env, { REASONIX_HOME: sh.home, NO_COLOR: "1", REASONIX_LANG: "en" });
  return { ...sh, env };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(ce: CliEnv, args: string[], opts: { stdin?: string; cwd?: string } = {}): Promise<RunResult> {
  const proc = Bun.spawn([process.execPath, mainTs, ...args], {
    cwd: opts.cwd ?? ce.workspace,
    env: ce.env,
    stdin: opts.stdin !== undefined ? new Blob([opts.stdin]) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}
