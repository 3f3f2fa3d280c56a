// `reasonix remote fs ls|cat|get|put|mkdir|rm|mv|stat`: remote files over SFTP.
// Heavy modules (ssh2, the remote layer) load inside handlers so --help stays instant.
import { existsSync, statSync } from "node:fs";
import { basename, resolve as resolvePath } from "node:path";
import type { Argv } from "yargs";
import { UsageError } from "../../core/errors.ts";
import { defineCommand, defineGroup } from "../command.ts";
import { printJson } from "../output.ts";
import { parseTarget, withFs } from "./remote-fs-session.ts";
import { acceptNewOpt } from "./remote-hosts.ts";

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
    const { parseRemotePath } = await import("../../remote/fs/entries.ts");
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

export const fsGroup = defineGroup("fs", "Remote files over SFTP: ls, cat, get, put, mkdir, rm, mv, stat (paths are NAME:PATH; ~ is the remote home)", [
  fsLs, fsCat, fsGet, fsPut, fsMkdir, fsRm, fsMv, fsStat,
]);
