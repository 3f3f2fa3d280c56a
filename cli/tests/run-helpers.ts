// Drives the real CLI (`bun cli/main.ts run …`) as a child process against a
// scripted LLM server, with a throw-away $REASONIX_HOME and workspace.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const repoRoot = resolve(import.meta.dir, "../..");
export const mainTs = join(repoRoot, "cli/main.ts");

export interface CliEnv {
  home: string;
  workspace: string;
  env: Record<string, string>;
  cleanup(): void;
}

export function makeCliEnv(providerUrl: string, opts: { kind?: "openai" | "anthropic"; extraToml?: string } = {}): CliEnv {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "reasonix-run-test-")));
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(
    join(home, "config.toml"),
    [
      'default_model = "scripted"',
      "[[providers]]",
      'name = "scripted"',
      `kind = "${opts.kind ?? "openai"}"`,
      `base_url = "${providerUrl}"`,
      'model = "scripted-model"',
      'api_key_env = "SCRIPTED_KEY"',
      opts.extraToml ?? "",
      "[sandbox]",
      // The bash sandbox is another area's concern; keep these runs independent of bwrap.
      'bash = "off"',
      "",
    ].join("\n"),
  );
  writeFileSync(join(home, ".env"), "SCRIPTED_KEY=sk-cli-test\n", { mode: 0o600 });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { REASONIX_HOME: home, NO_COLOR: "1" });
  return { home, workspace, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
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
