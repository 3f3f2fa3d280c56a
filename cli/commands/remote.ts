// `reasonix remote …`: hosts, connection test and SFTP file operations. Heavy
// modules (ssh2, the remote layer) load inside handlers so --help stays instant.
import { existsSync, statSync } from "node:fs";
import { basename, resolve as resolvePath } from "node:path";
import type { Argv } from "yargs";
import { UsageError } from "../../core/errors.ts";
import { defineCommand, defineGroup } from "../command.ts";
import { bold, dim, green, printJson, red, warn } from "../output.ts";
import { remoteSubcommands } from "./remote-subcommands.ts";

const SERVE_INSTALL = ["auto", "upload", "npm", "never"] as const;

const acceptNewOpt = (y: Argv) =>
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

// ---- remote fs ----------------------------------------------------------

type RemoteFsT = import("../../remote/fs/sftp.ts").RemoteFs;

async function parseTarget(spec: string): Promise<{ host: string; path: string }> {
  const { parseRemotePath } = await import("../../remote/fs/sftp.ts");
  const t = parseRemotePath(spec);
  if (!t) throw new UsageError(`"${spec}": expected NAME:PATH (e.g. gpu-box:'~/projects')`);
  return t;
}

/**
 * Connect, open SFTP, sweep the temp files an earlier interrupted transfer left
 * on this host, and run `fn`. SIGINT/SIGTERM stop the operation; its cleanup
 * (removing the `.part`) runs before the process exits 130/143.
 */
async function withFs<T>(host: string, acceptNew: boolean, fn: (fs: RemoteFsT) => Promise<T>): Promise<T> {
  const { connectHost } = await import("../../remote/hosts/connect.ts");
  const { RemoteFs } = await import("../../remote/fs/sftp.ts");
  const { sweepParts } = await import("../../remote/fs/parts-journal.ts");
  const { ReasonixError } = await import("../../core/errors.ts");
  const conn = await connectHost(host, { acceptNew, warn });
  let signalled: NodeJS.Signals | null = null;
  let fs: RemoteFsT | null = null;
  const onSignal = (sig: NodeJS.Signals) => {
    const code = sig === "SIGINT" ? 130 : 143;
    if (signalled) {
      // Asked twice: go now; the journal has the temp file for the next connect.
      process.stderr.write(`\nleaving the temp file for the next connect to ${host} to remove\n`);
      process.exit(code);
    }
    signalled = sig;
    if (fs && process.stderr.isTTY) process.stderr.write(`\nstopping: removing the temp file (press Ctrl-C again to leave that to the next connect)\n`);
    const what = `${sig === "SIGINT" ? "interrupted" : "terminated"} (${sig})`;
    if (!fs) {
      process.stderr.write(`${what} before anything was transferred\n`);
      process.exit(code);
    }
    fs.abort(new ReasonixError("interrupted", `${what}: the transfer did not complete; its temp file is removed (now, or on the next connect to ${host} if the link is gone)`));
    // The cleanup has some seconds (its request waits behind the data in flight); whatever
    // it could not remove is swept on the next connect.
    setTimeout(() => process.exit(code), 20_000).unref();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // Keep the process alive while the operation runs: a request nobody answers must
  // end in an error, never in an event loop that drains into a silent exit 0.
  const alive = setInterval(() => {}, 60_000);
  try {
    fs = await RemoteFs.open(conn.client, host, { journalHost: host });
    await sweepParts(host, (p) => fs!.removeTemp(p));
    try {
      return await fn(fs);
    } catch (e) {
      if (signalled) {
        process.stderr.write(`${(e as Error).message}\n`);
        process.exit(signalled === "SIGINT" ? 130 : 143);
      }
      throw e;
    } finally {
      fs.close();
    }
  } finally {
    clearInterval(alive);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    conn.close();
  }
}

const modeString = (type: string, mode: number): string => {
  const t = type === "dir" ? "d" : type === "symlink" ? "l" : type === "file" ? "-" : "?";
  const bits = "rwxrwxrwx";
  return t + [...bits].map((c, i) => (mode & (1 << (8 - i)) ? c : "-")).join("");
};

const fmtTime = (secs: number) => new Date(secs * 1000).toISOString().slice(0, 16).replace("T", " ");

/** A one-line progress bar on stderr, only when stderr is a terminal. */
function progressBar(): { update: (p: { path: string; transferred: number; total: number }) => void; done: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, done: () => {} };
  const start = Date.now();
  let last = 0;
  let shown = false;
  return {
    update: (p) => {
      const now = Date.now();
      if (now - last < 100 && p.transferred < p.total) return;
      last = now;
      shown = true;
      const pct = p.total ? Math.floor((p.transferred / p.total) * 100) : 100;
      const width = 24;
      const fill = Math.round((pct / 100) * width);
      const rate = p.transferred / Math.max(0.001, (now - start) / 1000) / 1e6;
      const name = basename(p.path).slice(0, 30);
      process.stderr.write(`\r\x1b[K${name} [${"#".repeat(fill)}${" ".repeat(width - fill)}] ${pct}% ${rate.toFixed(1)} MB/s`);
    },
    done: () => {
      if (shown) process.stderr.write("\r\x1b[K");
    },
  };
}

const fsLs = defineCommand<{ target: string; long: boolean; all: boolean; json: boolean; acceptNew: boolean }>({
  command: "ls <target>",
  describe: "List a remote directory (NAME:PATH)",
  builder: (y) =>
    acceptNewOpt(
      y
        .positional("target", { type: "string", demandOption: true, describe: "NAME:PATH" })
        .option("long", { alias: "l", type: "boolean", default: false, describe: "Long listing: mode, size, modification time" })
        .option("all", { alias: "a", type: "boolean", default: false, describe: "Include names starting with ." })
        .option("json", { type: "boolean", default: false }),
    ) as Argv<any>,
  run: async (a) => {
    const t = await parseTarget(a.target);
    const entries = await withFs(t.host, a.acceptNew, (fs) => fs.list(t.path, { all: a.all }));
    if (a.json) return printJson(entries);
    const sizeW = Math.max(0, ...entries.map((e) => String(e.size).length));
    for (const e of entries) {
      const name = e.type === "dir" ? `${e.name}/` : e.name;
      process.stdout.write(a.long ? `${modeString(e.type, e.mode)} ${String(e.size).padStart(sizeW)} ${fmtTime(e.mtime)} ${name}\n` : `${name}\n`);
    }
  },
});

const fsCat = defineCommand<{ target: string; acceptNew: boolean }>({
  command: "cat <target>",
  describe: "Print a remote file (NAME:PATH) to stdout",
  builder: (y) => acceptNewOpt(y.positional("target", { type: "string", demandOption: true })) as Argv<any>,
  run: async (a) => {
    const t = await parseTarget(a.target);
    await withFs(t.host, a.acceptNew, (fs) => fs.pipeTo(t.path, process.stdout));
  },
});

const fsGet = defineCommand<{ source: string; dest?: string; recursive: boolean; preserve: boolean; acceptNew: boolean }>({
  command: "get <source> [dest]",
  describe: "Download NAME:REMOTE to LOCAL (default: same name in the current directory); nothing partial is left on failure",
  builder: (y) =>
    acceptNewOpt(
      y
        .positional("source", { type: "string", demandOption: true, describe: "NAME:REMOTE" })
        .positional("dest", { type: "string", describe: "Local file or directory" })
        .option("recursive", { alias: "r", type: "boolean", default: false, describe: "Download a directory tree" })
        .option("preserve", { alias: "p", type: "boolean", default: false, describe: "Give an overwritten file the source's mode (default: keep the target's)" }),
    ) as Argv<any>,
  run: async (a) => {
    const t = await parseTarget(a.source);
    const bar = progressBar();
    const started = Date.now();
    const bytes = await withFs(t.host, a.acceptNew, async (fs) => {
      const st = await fs.stat(t.path);
      if (st.type === "dir" && !a.recursive) throw new UsageError(`${a.source} is a directory; use -r`);
      let dest = a.dest ?? st.name;
      if (existsSync(dest) && statSync(dest).isDirectory()) dest = `${dest}/${st.name}`;
      const opts = { preserve: a.preserve, onProgress: bar.update };
      return st.type === "dir" ? fs.getTree(t.path, dest, opts) : fs.getFile(t.path, dest, opts);
    }).finally(bar.done);
    if (process.stderr.isTTY) process.stderr.write(`${bytes} bytes in ${((Date.now() - started) / 1000).toFixed(2)} s\n`);
  },
});

const fsPut = defineCommand<{ source: string; dest: string; recursive: boolean; preserve: boolean; acceptNew: boolean }>({
  command: "put <source> <dest>",
  describe: "Upload LOCAL to NAME:REMOTE (written to a temp name, then renamed into place)",
  builder: (y) =>
    acceptNewOpt(
      y
        .positional("source", { type: "string", demandOption: true, describe: "Local file or directory" })
        .positional("dest", { type: "string", demandOption: true, describe: "NAME:REMOTE" })
        .option("recursive", { alias: "r", type: "boolean", default: false, describe: "Upload a directory tree" })
        .option("preserve", { alias: "p", type: "boolean", default: false, describe: "Give an overwritten file the source's mode (default: keep the target's)" }),
    ) as Argv<any>,
  run: async (a) => {
    const t = await parseTarget(a.dest);
    if (!existsSync(a.source)) throw new UsageError(`${a.source}: no such local file`);
    const isDir = statSync(a.source).isDirectory();
    if (isDir && !a.recursive) throw new UsageError(`${a.source} is a directory; use -r`);
    const bar = progressBar();
    const started = Date.now();
    const bytes = await withFs(t.host, a.acceptNew, async (fs) => {
      let dest = t.path === "" ? "~" : t.path;
      if ((await fs.exists(dest)) && (await fs.stat(dest)).type === "dir") dest = `${dest.replace(/\/$/, "")}/${basename(resolvePath(a.source))}`;
      const opts = { preserve: a.preserve, onProgress: bar.update };
      return isDir ? fs.putTree(a.source, dest, opts) : fs.putFile(a.source, dest, opts);
    }).finally(bar.done);
    if (process.stderr.isTTY) process.stderr.write(`${bytes} bytes in ${((Date.now() - started) / 1000).toFixed(2)} s\n`);
  },
});

const fsMkdir = defineCommand<{ target: string; parents: boolean; acceptNew: boolean }>({
  command: "mkdir <target>",
  describe: "Create a remote directory (NAME:PATH)",
  builder: (y) =>
    acceptNewOpt(
      y.positional("target", { type: "string", demandOption: true }).option("parents", { alias: "p", type: "boolean", default: false, describe: "Create parents; no error if it exists" }),
    ) as Argv<any>,
  run: async (a) => {
    const t = await parseTarget(a.target);
    await withFs(t.host, a.acceptNew, (fs) => fs.mkdir(t.path, { parents: a.parents }));
  },
});

const fsRm = defineCommand<{ target: string; recursive: boolean; acceptNew: boolean }>({
  command: "rm <target>",
  describe: "Remove a remote file, or a directory tree with -r (NAME:PATH)",
  builder: (y) =>
    acceptNewOpt(y.positional("target", { type: "string", demandOption: true }).option("recursive", { alias: "r", type: "boolean", default: false })) as Argv<any>,
  run: async (a) => {
    const t = await parseTarget(a.target);
    if (["", "~", "/", "~/"].includes(t.path.trim())) throw new UsageError(`refusing to remove ${a.target}`);
    await withFs(t.host, a.acceptNew, (fs) => fs.remove(t.path, { recursive: a.recursive }));
  },
});

const fsMv = defineCommand<{ source: string; dest: string; acceptNew: boolean }>({
  command: "mv <source> <dest>",
  describe: "Rename a remote path: NAME:FROM NAME:TO (or just TO)",
  builder: (y) => acceptNewOpt(y.positional("source", { type: "string", demandOption: true }).positional("dest", { type: "string", demandOption: true })) as Argv<any>,
  run: async (a) => {
    const s = await parseTarget(a.source);
    const { parseRemotePath } = await import("../../remote/fs/sftp.ts");
    const d = parseRemotePath(a.dest) ?? { host: s.host, path: a.dest };
    if (d.host !== s.host) throw new UsageError("mv works within one host; use get and put to copy between hosts");
    await withFs(s.host, a.acceptNew, async (fs) => {
      let to = d.path;
      if ((await fs.exists(to)) && (await fs.stat(to)).type === "dir") to = `${to.replace(/\/$/, "")}/${(await fs.lstat(s.path)).name}`;
      await fs.rename(s.path, to);
    });
  },
});

const fsStat = defineCommand<{ target: string; json: boolean; acceptNew: boolean }>({
  command: "stat <target>",
  describe: "Show a remote path's type, size, mode, owner and times",
  builder: (y) => acceptNewOpt(y.positional("target", { type: "string", demandOption: true }).option("json", { type: "boolean", default: false })) as Argv<any>,
  run: async (a) => {
    const t = await parseTarget(a.target);
    const e = await withFs(t.host, a.acceptNew, (fs) => fs.lstat(t.path));
    if (a.json) return printJson(e);
    process.stdout.write(
      [
        `path   ${e.path}`,
        `type   ${e.type}`,
        `size   ${e.size}`,
        `mode   ${modeString(e.type, e.mode)} (${e.mode.toString(8).padStart(4, "0")})`,
        `owner  uid ${e.uid} gid ${e.gid}`,
        `mtime  ${new Date(e.mtime * 1000).toISOString()}`,
        `atime  ${new Date(e.atime * 1000).toISOString()}`,
      ].join("\n") + "\n",
    );
  },
});

const fsGroup = defineGroup("fs", "Remote files over SFTP: ls, cat, get, put, mkdir, rm, mv, stat (paths are NAME:PATH; ~ is the remote home)", [
  fsLs, fsCat, fsGet, fsPut, fsMkdir, fsRm, fsMv, fsStat,
]);

export default defineGroup("remote", "Work on remote hosts over SSH: hosts, connect (tunnel to a remote serve), forwards, files", [
  add, list, remove, importCmd, test, fsGroup, ...remoteSubcommands,
]);
