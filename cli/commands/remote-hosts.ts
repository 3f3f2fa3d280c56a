// `reasonix remote add|list|remove|import|test`: the configured hosts and the
// connection test. Heavy modules (ssh2, the remote layer) load inside handlers
// so --help stays instant.
import { existsSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { UsageError } from "../../core/errors.ts";
import { defineCommand } from "../command.ts";
import { bold, dim, green, printJson, red, warn } from "../output.ts";

const SERVE_INSTALL = ["auto", "upload", "npm", "never"] as const;

/** `--accept-new` for the remote commands that dial a host (test, fs). */
export const acceptNewOpt = (y: Argv) =>
  y.option("accept-new", { type: "boolean", default: false, describe: "Trust and record a host key seen for the first time (never overrides a changed key)" });

const add = defineCommand<{
  name: string; target: string; port?: string; identity?: string; jump?: string; workspace?: string; useSshConfig: boolean;
  serveInstall?: (typeof SERVE_INSTALL)[number]; passphraseEnv?: string; passwordEnv?: string; credentials?: "remote" | "local-proxy";
}>({
  command: "add <name> <target>",
  describe: "Add a host to the user config: TARGET is [USER@]HOST[:PORT] (or an ssh config alias with --use-ssh-config)",
  builder: (y) =>
    y
      .positional("name", { type: "string", demandOption: true, describe: "Name to refer to the host by" })
      .positional("target", { type: "string", demandOption: true, describe: "[USER@]HOST[:PORT]" })
      .option("port", { alias: "p", type: "string", describe: "SSH port (the same as HOST:PORT)" })
      .option("identity", { alias: "i", type: "string", describe: "Private key file" })
      .option("jump", { alias: "J", type: "string", describe: "ProxyJump: [USER@]HOST[:PORT][,…] or a configured host name" })
      .option("workspace", { type: "string", describe: "Remote workspace directory (e.g. '~/projects/app')" })
      .option("use-ssh-config", { type: "boolean", default: false, describe: "Resolve the host through `ssh -G` (~/.ssh/config) when connecting" })
      .option("serve-install", { choices: SERVE_INSTALL, describe: "How to install the remote serve (default auto)" })
      .option("credentials", { choices: ["remote", "local-proxy"] as const, describe: "Where provider keys live: the remote's .env (default), or only here (local-proxy: the remote reaches the models through this machine while connected)" })
      .option("passphrase-env", { type: "string", describe: "Variable in $REASONIX_HOME/.env holding the key passphrase" })
      .option("password-env", { type: "string", describe: "Variable in $REASONIX_HOME/.env holding the login password" }) as Argv<any>,
  run: async (a) => {
    const { parseHostSpec, parseJumpList } = await import("../../remote/hosts/spec.ts");
    const { addHost, userConfigPath } = await import("../../remote/hosts/store.ts");
    const { checkTarget, workspaceWarning } = await import("../../remote/hosts/check-target.ts");
    const spec = parseHostSpec(a.target);
    if (a.port !== undefined) {
      const port = String(a.port).trim();
      if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw new UsageError(`--port "${a.port}": port must be 1-65535`);
      if (spec.port !== undefined && spec.port !== Number(port)) throw new UsageError(`"${a.target}" names port ${spec.port} but --port says ${port}; give one`);
      spec.port = Number(port);
    }
    checkTarget(spec, a.target);
    if (a.jump) for (const hop of a.jump.split(",").map((s) => s.trim()).filter(Boolean)) checkTarget(parseJumpList(hop)[0]!, hop, "--jump hop");
    const wsWarning = a.workspace ? workspaceWarning(a.workspace) : null;
    if (wsWarning) warn(wsWarning);
    for (const v of [a.passphraseEnv, a.passwordEnv]) {
      if (v !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) throw new UsageError(`"${v}" is not a valid variable name`);
    }
    let identity = a.identity;
    if (identity && !identity.startsWith("~") && !identity.startsWith("/")) identity = resolvePath(identity);
    if (identity && !existsSync(identity.replace(/^~(?=\/)/, process.env.HOME ?? "~"))) warn(`identity file ${identity} does not exist (yet)`);
    const host = {
      name: a.name,
      host: spec.host,
      ...(spec.port !== undefined ? { port: spec.port } : {}),
      ...(spec.user ? { user: spec.user } : {}),
      ...(identity ? { identity_file: identity } : {}),
      ...(a.passphraseEnv ? { passphrase_env: a.passphraseEnv } : {}),
      ...(a.passwordEnv ? { password_env: a.passwordEnv } : {}),
      ...(a.jump ? { proxy_jump: a.jump } : {}),
      ...(a.useSshConfig ? { use_ssh_config: true } : {}),
      ...(a.workspace ? { workspace: a.workspace } : {}),
      ...(a.serveInstall ? { serve_install: a.serveInstall } : {}),
      ...(a.credentials === "local-proxy" ? { credentials: a.credentials } : {}),
    };
    addHost(host);
    process.stderr.write(`added ${bold(a.name)} to ${userConfigPath()}\n`);
  },
});

const describeTarget = (h: { host?: string; user?: string; port?: number; use_ssh_config?: boolean; name: string }) =>
  h.use_ssh_config ? `ssh-config:${h.host ?? h.name}` : `${h.user ? `${h.user}@` : ""}${h.host?.includes(":") ? `[${h.host}]` : (h.host ?? "?")}${h.port && h.port !== 22 ? `:${h.port}` : ""}`;

const list = defineCommand<{ json: boolean }>({
  command: ["list", "ls"],
  describe: "List configured hosts",
  builder: (y) => y.option("json", { type: "boolean", default: false, describe: "Print the entries as JSON" }),
  run: async (a) => {
    const { loadRemoteSettings } = await import("../../remote/hosts/store.ts");
    const s = loadRemoteSettings();
    for (const w of s.warnings) warn(w);
    if (a.json) return printJson(s.hosts);
    if (s.hosts.length === 0) {
      process.stderr.write("no remote hosts; add one with `reasonix remote add NAME [USER@]HOST[:PORT]`\n");
      return;
    }
    const rows = s.hosts.map((h) => [h.name, describeTarget(h), h.proxy_jump ? `via ${h.proxy_jump}` : "", h.workspace ?? ""]);
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows) process.stdout.write(`${r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()}\n`);
  },
});

const remove = defineCommand<{ name: string }>({
  command: ["remove <name>", "rm <name>"],
  describe: "Remove a host from the user config (other settings and comments are kept)",
  builder: (y) => y.positional("name", { type: "string", demandOption: true }),
  run: async (a) => {
    const { removeHost, userConfigPath } = await import("../../remote/hosts/store.ts");
    removeHost(a.name);
    process.stderr.write(`removed ${bold(a.name)} from ${userConfigPath()}\n`);
  },
});

const importCmd = defineCommand<{ aliases: string[]; all: boolean }>({
  command: "import [aliases..]",
  describe: "Import aliases from ~/.ssh/config (resolved with `ssh -G` at connect time)",
  builder: (y) =>
    y
      .positional("aliases", { type: "string", array: true, default: [], describe: "Host aliases to import" })
      .option("all", { type: "boolean", default: false, describe: "Import every concrete Host alias (patterns are skipped)" }),
  run: async (a) => {
    const { listSshAliases, sshConfigPath } = await import("../../remote/hosts/ssh-config.ts");
    const { addHost, listHosts } = await import("../../remote/hosts/store.ts");
    const { HOST_NAME_RE } = await import("../../remote/hosts/types.ts");
    const file = sshConfigPath();
    const found = listSshAliases(file);
    const known = new Set(found.map((f) => f.alias));
    const wanted = a.all ? [...known] : a.aliases;
    if (wanted.length === 0) {
      const names = [...known];
      throw new UsageError(
        "name the aliases to import, or pass --all",
        names.length ? `aliases in ${file}: ${names.join(", ")}` : `no Host aliases found in ${file}`,
      );
    }
    const existing = new Set(listHosts().map((h) => h.name));
    let added = 0;
    let failed = 0;
    for (const alias of wanted) {
      if (!known.has(alias)) warn(`${alias} is not a Host alias in ${file}; importing anyway (ssh -G will resolve it)`);
      if (existing.has(alias)) {
        process.stderr.write(`${dim("skip")} ${alias}: already configured\n`);
        continue;
      }
      if (!HOST_NAME_RE.test(alias)) {
        warn(`${alias}: not usable as a host name; skipped`);
        failed++;
        continue;
      }
      addHost({ name: alias, host: alias, use_ssh_config: true });
      existing.add(alias);
      added++;
      process.stderr.write(`imported ${bold(alias)}\n`);
    }
    process.stderr.write(`${added} imported from ${file}\n`);
    return failed > 0 && added === 0 ? 1 : 0;
  },
});

const test = defineCommand<{ name: string; acceptNew: boolean; json: boolean }>({
  command: "test <name>",
  describe: "Dial, verify the host key, authenticate, and report the remote platform and install routes",
  builder: (y) => acceptNewOpt(y.positional("name", { type: "string", demandOption: true })).option("json", { type: "boolean", default: false }) as Argv<any>,
  run: async (a) => {
    const { connectHost } = await import("../../remote/hosts/connect.ts");
    const { probeRemote } = await import("../../remote/hosts/probe.ts");
    const started = Date.now();
    const conn = await connectHost(a.name, { acceptNew: a.acceptNew, warn });
    try {
      const p = await probeRemote(conn.client);
      const report = {
        name: a.name,
        target: conn.target.label === a.name ? `${conn.target.user}@${conn.target.host}:${conn.target.port}` : conn.target.label,
        jumps: (conn.target.jumps ?? []).map((j) => `${j.user}@${j.host}:${j.port}`),
        host_key: conn.hostKeys[conn.hostKeys.length - 1],
        auth: conn.authMethod,
        ...p,
        elapsed_ms: Date.now() - started,
      };
      if (a.json) return printJson(report);
      const ok = (b: boolean) => (b ? green("yes") : red("no"));
      const out = [
        `${bold(a.name)}: connected to ${report.target}${report.jumps.length ? ` via ${report.jumps.join(" -> ")}` : ""} in ${report.elapsed_ms} ms`,
        `host key   ${report.host_key?.fingerprint} (${report.host_key?.outcome === "accepted" ? "newly trusted" : `known, ${report.host_key?.recordedAt}`})`,
        `auth       ${report.auth}`,
        `remote     ${p.os} ${p.arch}${p.platform ? ` (${p.platform})` : ` ${red("unsupported platform")}`}`,
        `user       ${p.user}  home ${p.home}  shell ${p.loginShell || "?"}`,
        `install    upload: ${ok(p.routes.upload)}  npm: ${ok(p.routes.npm)}${p.npm ? dim(` (${p.npm})`) : ""}`,
      ];
      process.stdout.write(`${out.join("\n")}\n`);
      return p.platform ? 0 : 1;
    } finally {
      conn.close();
    }
  },
});

/** add, list, remove, import, test — in the order `remote --help` lists them. */
export const hostCommands: CommandModule<any, any>[] = [add, list, remove, importCmd, test];
