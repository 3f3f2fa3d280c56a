import { constants } from "node:os";
import { UsageError } from "../../core/errors.ts";
import { defineCommand, defineGroup } from "../command.ts";
import { bold, dim, green, printJson, red, warn } from "../output.ts";

const check = defineCommand<{ json: boolean }>({
  command: "check",
  describe: "Show the OS sandbox backend for bash, its version, and whether it works here",
  builder: (y) => y.option("json", { type: "boolean", default: false, describe: "Print as JSON" }),
  run: async (args) => {
    const { loadConfig } = await import("../../core/config/load.ts");
    const { probeSandbox } = await import("../../core/sandbox/index.ts");
    const cfg = loadConfig();
    for (const w of cfg.warnings) warn(w);
    const mode = ((cfg.values.sandbox as { bash?: string } | undefined)?.bash ?? "enforce") as "enforce" | "off";
    const status = await probeSandbox();
    const report = { mode, ...status };
    if (args.json) {
      printJson(report);
      return status.available || mode === "off" ? 0 : 1;
    }
    const out = (label: string, value: string) => process.stdout.write(`${label.padEnd(10)} ${value}\n`);
    out("backend", `${status.backend}${status.version ? ` ${status.version}` : ""}${status.path ? dim(` (${status.path})`) : ""}`);
    out("mode", mode === "off" ? `off ${dim("(bash runs unconfined; the probe does not matter)")}` : "enforce");
    out("works", status.available ? green("yes") : red("no"));
    if (!status.available) {
      out("cause", status.cause ?? "unknown");
      out("fix", status.fix ?? "");
    }
    return status.available || mode === "off" ? 0 : 1;
  },
});

interface RunArgs {
  network: boolean;
  write: string[];
  forbidRead: string[];
  cmd: string[];
}

const run = defineCommand<RunArgs>({
  command: "run [cmd..]",
  describe: "Run one command under the sandbox profile the agent's bash uses (enforced, for debugging a policy)",
  builder: (y) =>
    y
      .usage("reasonix sandbox run [--network] [--write DIR]... [--forbid-read PATH]... -- CMD [ARGS...]")
      .positional("cmd", { type: "string", array: true, describe: "command and arguments (after --)" })
      .option("network", { type: "boolean", default: false, describe: "Allow network access (also on when sandbox.network = true)" })
      .option("write", { type: "string", array: true, default: [], describe: "Extra writable directory (repeatable)" })
      .option("forbid-read", { type: "string", array: true, default: [], describe: "Extra path to hide (repeatable)" })
      .example("reasonix sandbox run -- touch /etc/x", "fails: / is read-only")
      .example("reasonix sandbox run --write ../lib -- make", "also allow writing ../lib") as never,
  run: async (args) => {
    // Words after `--` land in `_` after the command path ("sandbox", "run").
    const argv = [...(args.cmd ?? []), ...args._.slice(2)].map(String);
    if (argv.length === 0) throw new UsageError("sandbox run: missing command", "usage: reasonix sandbox run [options] -- CMD [ARGS...]");
    const { loadConfig } = await import("../../core/config/load.ts");
    const { homePaths } = await import("../../core/home.ts");
    const { createPathPolicy } = await import("../../core/policy/paths.ts");
    const sb = await import("../../core/sandbox/index.ts");
    const { savedCredentialNames } = await import("../../core/sandbox/env.ts");
    const cfg = loadConfig();
    for (const w of cfg.warnings) warn(w);
    const section = (cfg.values.sandbox ?? {}) as { network?: boolean; env_passthrough?: string[]; ssh_agent?: boolean };
    const policy = createPathPolicy({
      config: section,
      cwd: process.cwd(),
      extraWrite: args.write.map(String),
      extraForbidRead: args.forbidRead.map(String),
      reasonixHome: cfg.home,
    });
    const sessionTmpDir = sb.createSessionTmpDir();
    try {
      const res = await sb.runSandboxed(argv, {
        policy,
        mode: "enforce",
        network: args.network || section.network === true,
        sessionTmpDir,
        cwd: process.cwd(),
        stripEnv: savedCredentialNames(cfg.values, homePaths(cfg.home).dotenv),
        envPassthrough: section.env_passthrough ?? [],
        sshAgent: section.ssh_agent === true,
        watchGit: true,
        onOutput: (chunk, stream) => (stream === "stdout" ? process.stdout : process.stderr).write(chunk),
        maxOutputBytes: 0,
      });
      if (!res.ok) {
        process.stderr.write(`${red("error:", process.stderr)} ${res.refusal.cause}\n${dim("fix:", process.stderr)} ${res.refusal.fix}\n`);
        return 1;
      }
      for (const v of res.violations) warn(`the command created protected ${v.path}; moved it to ${v.movedTo}`);
      for (const n of res.notes) warn(n);
      if (res.signalCode) return 128 + ((constants.signals as Record<string, number>)[res.signalCode] ?? 0);
      return res.exitCode ?? 1;
    } finally {
      sb.removeSessionTmpDir(sessionTmpDir);
    }
  },
});

const profiles = defineCommand<{ show?: string; json: boolean }>({
  command: "profiles",
  describe: "List the sandbox profiles embedded in this binary, or print one",
  builder: (y) =>
    y
      .option("show", { type: "string", describe: "Print the named profile as embedded" })
      .option("json", { type: "boolean", default: false, describe: "Print as JSON" }) as never,
  run: async (args) => {
    const { listProfiles, getProfile } = await import("../../core/sandbox/profiles.ts");
    if (args.show) {
      const p = getProfile(args.show);
      if (args.json) return printJson(p);
      process.stdout.write(p.text.endsWith("\n") ? p.text : `${p.text}\n`);
      return;
    }
    const list = listProfiles();
    if (args.json) return printJson(list.map(({ name, file }) => ({ name, file })));
    for (const p of list) process.stdout.write(`${bold(p.name.padEnd(16))} ${dim(p.file)}\n`);
  },
});

export default defineGroup("sandbox", "Inspect and try the OS sandbox that confines the bash tool", [check, run, profiles]);
