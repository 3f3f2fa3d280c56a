/**
 * Start a stdio MCP server the way bash commands run: inside the OS sandbox
 * (core/sandbox, the same bwrap/Seatbelt profile), with the network on and
 * writes limited to the workspace and the server's private state dir, and an
 * environment scrubbed like bash's (allowlist, no Reasonix keys) plus the
 * variables the server's own declaration sets. `sandbox = false` (user
 * config only) runs it unconfined, still with the scrubbed environment.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { getDotted } from "../config/load.ts";
import { ReasonixError } from "../errors.ts";
import { homePaths } from "../home.ts";
import { createPathPolicy, type SandboxConfig } from "../policy/paths.ts";
import { savedCredentialNames } from "../sandbox/env.ts";
import { wrapCommand } from "../sandbox/index.ts";
import { stateDirOf, type McpServerSpec } from "./config.ts";

export interface LaunchContext {
  workspace: string;
  home: string;
  /** Effective config values (sandbox section, credential names). */
  config: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
}

export interface Launched {
  transport: StdioClientTransport;
  backend: string;
  /** The last few KB of the server's stderr (for failures). */
  stderr(): string;
  /** How the process ended ("code 3", "signal SIGKILL"), once it has. */
  exited(): string | undefined;
  /** Call after the process is gone (sandbox guards). */
  finish(): void;
}

const STDERR_KEEP = 8192;

/**
 * Let the event loop run (timers, input, rendering). Starting a server has
 * synchronous stretches (the path policy's scan for git state, the sandbox
 * profile, the spawn itself), and the awaits in between resolve as
 * microtasks: without a real turn, several servers starting together held
 * the loop for their sum (measured up to half a second on a loaded machine).
 */
export const yieldLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

export async function launchStdio(spec: McpServerSpec, ctx: LaunchContext): Promise<Launched> {
  const env = ctx.env ?? process.env;
  await yieldLoop();
  const stateDir = stateDirOf(spec, ctx.workspace, ctx.home, env);
  mkdirSync(join(stateDir, "tmp"), { recursive: true, mode: 0o700 });
  mkdirSync(join(stateDir, "cache"), { recursive: true, mode: 0o700 });
  const cwd = spec.cwd ? (isAbsolute(spec.cwd) ? spec.cwd : resolve(ctx.workspace, spec.cwd)) : ctx.workspace;
  const policy = createPathPolicy({ config: (ctx.config.sandbox ?? {}) as SandboxConfig, cwd: ctx.workspace, extraWrite: [stateDir], reasonixHome: ctx.home, env });
  await yieldLoop();
  const wrapped = await wrapCommand([spec.command!, ...spec.args], {
    policy,
    mode: spec.sandbox ? "enforce" : "off",
    network: true,
    sessionTmpDir: join(stateDir, "tmp"),
    cwd,
    env,
    stripEnv: savedCredentialNames(ctx.config, homePaths(ctx.home).dotenv),
    envPassthrough: (getDotted(ctx.config, "sandbox.env_passthrough") as string[] | undefined) ?? [],
    // The server's own program and script files, wherever they are installed (even under /tmp).
    extraRead: serverFiles(spec),
  });
  if (!wrapped.ok) {
    throw new ReasonixError("mcp-sandbox", `MCP server "${spec.name}" runs in the OS sandbox, but ${wrapped.refusal.cause}`, {
      hint: `${wrapped.refusal.fix}; or set sandbox = false on this server in your user config (${homePaths(ctx.home).config})`,
    });
  }
  // Package managers write caches under $HOME by default, which the sandbox keeps read-only.
  const caches = { XDG_CACHE_HOME: join(stateDir, "cache"), npm_config_cache: join(stateDir, "cache", "npm") };
  const transport = new StdioClientTransport({
    command: wrapped.argv[0]!,
    args: wrapped.argv.slice(1),
    env: { ...wrapped.env, ...caches, ...spec.env },
    cwd: wrapped.cwd,
    stderr: "pipe",
  });
  let tail = "";
  transport.stderr?.on("data", (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_KEEP);
  });
  // The SDK keeps the child to itself and reports only that it closed: note how it ended.
  let ended: string | undefined;
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    (transport as unknown as { _process?: ChildProcess })._process?.once("exit", (code, signal) => (ended = signal ? `signal ${signal}` : `code ${code}`));
  };
  return { transport, backend: wrapped.backend, stderr: () => tail, exited: () => ended, finish: () => void wrapped.finish() };
}

/** Absolute paths among the command and its arguments that exist: the server's files, and their package folders. */
function serverFiles(spec: McpServerSpec): string[] {
  const out: string[] = [];
  for (const a of [spec.command!, ...spec.args]) {
    if (!isAbsolute(a) || !existsSync(a)) continue;
    out.push(a);
    // A script imports its siblings and its node_modules: bind the enclosing package.
    let dir = dirname(a);
    for (let i = 0; i < 8 && dir !== dirname(dir); i++, dir = dirname(dir)) {
      if (basename(dir) === "node_modules") {
        out.push(dir);
        break;
      }
    }
  }
  return out;
}
