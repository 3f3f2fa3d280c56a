import type { Argv } from "yargs";
import { defineCommand } from "../command.ts";
import { bold, dim, printJsonLine, warn } from "../output.ts";
import { traceMark } from "../../core/trace.ts";
import type { AuthMode } from "../../core/serve/auth.ts";

export interface ServeArgs {
  addr?: string;
  auth?: AuthMode;
  token?: string;
  tokenFile?: string;
  password?: string;
  portFile?: string;
  pidFile?: string;
  workspace?: string;
  model?: string;
  resume?: string;
  behindProxy?: boolean;
  publicHost?: string[];
  allowUnauthenticated?: boolean;
  json?: boolean;
}

/** Options `serve` and `web` share. */
export function commonServeOptions<T>(y: Argv<T>, defaultAddr: string): Argv<T & ServeArgs> {
  return y
    .option("addr", { type: "string", describe: `listen address HOST:PORT (port 0 = any free port) [default: ${defaultAddr}]` })
    .option("auth", { type: "string", choices: ["none", "token", "password"] as const, describe: "authentication mode" })
    .option("token", { type: "string", describe: "fixed token (visible in ps; prefer --token-file)" })
    .option("token-file", { type: "string", describe: "read the token from this 0600 file" })
    .option("password", { type: "string", describe: "password for --auth password (or set [serve].password_hash)" })
    .option("port-file", { type: "string", describe: "write the bound host:port here once listening" })
    .option("pid-file", { type: "string", describe: "write this process's pid here" })
    .option("workspace", { type: "string", describe: "project directory the agent works in [default: cwd]" })
    .option("model", { type: "string", describe: "provider name to use instead of default_model" })
    .option("resume", { type: "string", describe: "load this session at startup" })
    .option("behind-proxy", { type: "boolean", describe: "trust X-Forwarded-* headers from a reverse proxy" })
    .option("public-host", { type: "string", array: true, describe: "extra Host name to accept (repeatable)" })
    .option("allow-unauthenticated", { type: "boolean", describe: "permit --auth none on a non-loopback listener" })
    .option("json", { type: "boolean", default: false, describe: "print one JSON line per lifecycle event" }) as unknown as Argv<T & ServeArgs>;
}

/** Start a server for `serve` or `web` and block until a signal; returns the exit code. */
export async function runServeCommand(kind: "serve" | "web", args: ServeArgs, opts: { portRetries?: number; onReady?: (url: string) => void } = {}): Promise<number> {
  const { loadConfig } = await import("../../core/config/load.ts");
  const { resolveSettings } = await import("../../core/serve/settings.ts");
  const { runServer } = await import("../../core/serve/run.ts");
  const { engineFactoryFromConfig, providerKeyWriter } = await import("../../core/serve/engine.ts");
  const { buildInfo } = await import("../../core/version.ts");
  const { reasonixHome } = await import("../../core/home.ts");

  const home = reasonixHome();
  const cwd = args.workspace ?? process.cwd();
  const cfg = loadConfig({ cwd, home });
  for (const w of cfg.warnings) warn(w);
  const serveCfg = (cfg.values.serve ?? {}) as Record<string, never>;
  const s = await resolveSettings(kind, { ...args }, serveCfg, process.cwd());
  if (args.token !== undefined) warn("--token is visible to other users in the process list; prefer --token-file");
  if (args.password !== undefined) {
    warn("--password is visible to other users in the process list; prefer [serve].password_hash (see `reasonix serve --hash-password`)");
  }

  // Usage counters (docs/telemetry.md: surface "serve", only with [telemetry] mode = on): every session the server opens.
  const { UsageCounters } = await import("../../core/telemetry/counters.ts");
  const counters = new UsageCounters();
  const version = buildInfo().version;
  const proxy = (await import("../../core/providers/proxy.ts")).proxyManifestFromEnv();
  const code = await runServer({
    kind,
    home,
    host: s.host,
    port: s.port,
    portRetries: opts.portRetries,
    auth: s.auth,
    behindProxy: s.behindProxy,
    publicHosts: s.publicHosts,
    workspace: s.workspace,
    version,
    model: args.model,
    // Behind a provider proxy the engine's entries (and their default) come from its manifest.
    defaultModel: proxy ? proxy.default_model : typeof cfg.values.default_model === "string" && cfg.values.default_model ? cfg.values.default_model : undefined,
    resume: args.resume,
    engineFactory: await engineFactoryFromConfig(home, (session) => void counters.follow(session)),
    saveProviderKey: providerKeyWriter(home),
    portFile: args.portFile,
    pidFile: args.pidFile,
    onListening: (server) => {
      // Print the credential only when this process made it up (or the user typed it);
      // a token from --token-file or [serve].token stays out of logs.
      const printable = s.tokenSource === "generated" || s.tokenSource === "flag";
      const shareable = s.auth.mode === "token" && printable ? `${server.url}#token=${s.auth.token}` : server.url;
      const status = server.sessions.ready ? undefined : server.sessions.error;
      traceMark("serve:listening");
      if (args.json) {
        printJsonLine({ event: "listening", kind, url: shareable, addr: server.addr, pid: process.pid, authMode: s.auth.mode, engine: status ? { ready: false, error: status } : { ready: true } });
      } else {
        process.stdout.write(`${bold(`reasonix ${kind}`)} ${dim(`${version}, workspace ${s.workspace}`)}\n`);
        process.stdout.write(`listening on ${server.addr} (auth: ${s.auth.mode})\n`);
        process.stdout.write(`open: ${shareable}\n`);
        if (status) warn(`engine not ready: ${status}`);
      }
      opts.onReady?.(shareable);
    },
    // Killed or crashed without cleaning up: kept as a crash report (docs/crash-reports.md).
    onEarlierDied: (rec) => void import("../crash.ts").then(({ recordChildDeath }) => recordChildDeath("serve", `an earlier reasonix ${rec.kind} (pid ${rec.pid})`, "it ended without shutting down", "", rec.startedAt)),
    onShutdown: (signal) => {
      if (args.json) printJsonLine({ event: "stopping", signal });
      else process.stderr.write(dim(`${signal}: shutting down…\n`, process.stderr));
    },
  });
  await (await import("../../core/telemetry/session.ts")).finishSurface(home, "serve", counters);
  return code;
}

export default defineCommand<ServeArgs & { hashPassword?: boolean }>({
  command: "serve",
  describe: "Run the HTTP API and browser UI (headless; for tunnels, supervisors and proxies)",
  builder: (y) =>
    commonServeOptions(y, "127.0.0.1:8787")
      .option("hash-password", { type: "boolean", describe: "print a bcrypt hash of --password for [serve].password_hash and exit" })
      .example("$0 serve --auth token --token-file ~/.reasonix/token", "token auth, token kept out of ps")
      .example("$0 serve --hash-password --password 'correct horse'", "hash for [serve].password_hash") as never,
  run: (args) => serveMain(args),
});

/** `reasonix serve` once its arguments are read (by yargs, or by cli/serve-args.ts). */
export async function serveMain(args: ServeArgs & { hashPassword?: boolean }): Promise<number> {
  if (process.env.REASONIX_TEST_CRASH) (await import("../test-crash.ts")).testCrash("serve");
  if (args.hashPassword) {
    const { UsageError } = await import("../../core/errors.ts");
    if (!args.password) throw new UsageError("--hash-password needs --password");
    const { hashPassword } = await import("../../core/serve/auth.ts");
    process.stdout.write(`${await hashPassword(args.password)}\n`);
    return 0;
  }
  return runServeCommand("serve", args);
}
