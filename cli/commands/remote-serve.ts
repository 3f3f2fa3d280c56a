// `reasonix remote serve status|start|stop|logs NAME`: manage the persistent
// remote serve without keeping a tunnel open.
import type { Argv } from "yargs";
import { defineCommand, defineGroup } from "../command.ts";
import { bold, dim, green, printJson, red, warn } from "../output.ts";

interface Common {
  name: string;
  workspace?: string;
  acceptNew: boolean;
}

const common = (y: Argv) =>
  y
    .positional("name", { type: "string", demandOption: true, describe: "Configured host" })
    .option("workspace", { type: "string", describe: "Remote workspace (default: the host's workspace, else ~)" })
    .option("accept-new", { type: "boolean", default: false, describe: "Trust and record a host key seen for the first time" });

type Conn = import("../../remote/ssh/connect.ts").SshConnection;

async function withHost<T>(a: Common, fn: (conn: Conn, workspace: string, host: import("../../remote/hosts/types.ts").HostConfig) => Promise<T>): Promise<T> {
  const { connectHost } = await import("../../remote/hosts/connect.ts");
  const { getHost } = await import("../../remote/hosts/store.ts");
  const host = getHost(a.name);
  const conn = await connectHost(host, { acceptNew: a.acceptNew, warn });
  try {
    return await fn(conn, a.workspace ?? host.workspace ?? "~", host);
  } finally {
    conn.close();
  }
}

const status = defineCommand<Common & { json: boolean }>({
  command: "status <name>",
  describe: "Show whether the remote serve runs, its pid, version, address and health",
  builder: (y) => common(y).option("json", { type: "boolean", default: false, describe: "Print JSON" }) as Argv<any>,
  run: (a) =>
    withHost(a, async (conn, workspace) => {
      const { readRemoteState, isOurServe, checkServe } = await import("../../remote/bootstrap/bootstrap.ts");
      const { parseHostPort } = await import("../../remote/tunnel/http.ts");
      const { buildInfo } = await import("../../core/version.ts");
      const version = buildInfo().version;
      const s = await readRemoteState(conn.client, workspace, version, undefined, { allowMissing: true });
      const running = isOurServe(s);
      let healthy: boolean | null = null;
      let why: string | undefined;
      // Only the address recorded for this very pid is its own; an older one may be anyone's now.
      if (running && s.json?.addr && s.json.pid === s.pid && s.token) {
        const c = await checkServe(conn.client, parseHostPort(s.json.addr), s.token, s.json.version ?? version);
        healthy = c.ok;
        why = c.why;
      }
      const report = {
        host: a.name,
        platform: s.platform ?? `${s.os} ${s.arch} (unsupported)`,
        workspace: s.workspace,
        workspace_exists: !s.workspaceMissing,
        slug: s.slug,
        running,
        pid: running ? s.pid : null,
        version: running ? (s.json?.version ?? null) : null,
        addr: running ? (s.json?.addr ?? null) : null,
        started_at: running ? (s.json?.started_at ?? null) : null,
        healthy,
        ...(why ? { problem: why } : {}),
        local_version: version,
        local_version_installed: s.haveBin,
        log: `${s.home}/.reasonix/remote/serve-${s.slug}.log`,
      };
      if (a.json) {
        printJson(report);
        return 0;
      }
      const out = [`${bold(a.name)} workspace ${report.workspace}${s.workspaceMissing ? ` ${red("(does not exist any more: deleted?)")}` : ""}`];
      if (running) {
        out.push(`serve      ${green("running")} pid ${report.pid}, version ${report.version}, on ${report.addr}`);
        out.push(`started    ${report.started_at || "?"}`);
        out.push(`health     ${healthy ? green("ok") : red(`failing${why ? `: ${why}` : ""}`)}`);
        if (report.version !== version) out.push(dim(`this client is ${version}; \`remote connect\` will replace the serve`));
      } else out.push(`serve      ${red("not running")}`);
      out.push(`binary     reasonix-${version} ${s.haveBin ? "installed" : "not installed"}`);
      out.push(`log        ${report.log}`);
      process.stdout.write(`${out.join("\n")}\n`);
      return 0;
    }),
});

const startOrRestart = (restart: boolean) => (a: Common & { json: boolean; newToken?: boolean }) =>
    withHost(a, async (conn, workspace, host) => {
      const { ensureServe } = await import("../../remote/bootstrap/bootstrap.ts");
      const { ServeCache } = await import("../../remote/supervisor/serve-cache.ts");
      // Keys kept on the remote: a manifest left from local-proxy must not send the new serve to a proxy.
      if (host.credentials !== "local-proxy") await (await import("../../remote/supervisor/provider-link.ts")).removeRemoteManifest(conn.client);
      const info = await ensureServe(conn.client, {
        workspace,
        restart,
        newToken: !!a.newToken,
        install: host.serve_install ?? "auto",
        onEvent: (e) => {
          if (!a.json && e.event === "installed") process.stderr.write(`installed reasonix on the remote (${e.bytes} bytes sent)\n`);
          if (!a.json && e.event === "stopping_old") process.stderr.write(`stopping remote serve ${e.pid} (version ${e.version})\n`);
        },
      });
      new ServeCache().put(a.name, workspace, info);
      const { token: _t, ...shown } = info;
      if (a.json) printJson({ ...shown, addr: `${info.addr.host}:${info.addr.port}` });
      else process.stdout.write(`remote serve ${info.reused ? "already running" : restart ? "restarted" : "started"}: pid ${info.pid} on ${info.addr.host}:${info.addr.port} (workspace ${info.workspace})${a.newToken ? "; new token: old URLs stop working" : ""}\n`);
      return 0;
    });

const start = defineCommand<Common & { json: boolean }>({
  command: "start <name>",
  describe: "Install (if needed) and start the remote serve, or confirm the running one; no tunnel",
  builder: (y) => common(y).option("json", { type: "boolean", default: false, describe: "Print JSON" }) as Argv<any>,
  run: startOrRestart(false),
});

const restart = defineCommand<Common & { json: boolean; newToken: boolean }>({
  command: "restart <name>",
  describe: "Stop and start the remote serve; it keeps its token (open URLs keep working) unless --new-token",
  builder: (y) =>
    common(y)
      .option("json", { type: "boolean", default: false, describe: "Print JSON" })
      .option("new-token", { type: "boolean", default: false, describe: "Rotate the auth token: every URL and open tab given out so far stops working" }) as Argv<any>,
  run: startOrRestart(true),
});

const stop = defineCommand<Common>({
  command: "stop <name>",
  describe: "Stop the remote serve for the workspace (TERM, then KILL after 10 s)",
  builder: (y) => common(y) as Argv<any>,
  run: (a) =>
    withHost(a, async (conn, workspace) => {
      const { readRemoteState, isOurServe, stopServe } = await import("../../remote/bootstrap/bootstrap.ts");
      const { ServeCache } = await import("../../remote/supervisor/serve-cache.ts");
      const { buildInfo } = await import("../../core/version.ts");
      const s = await readRemoteState(conn.client, workspace, buildInfo().version, undefined, { allowMissing: true });
      new ServeCache().drop(a.name, workspace);
      if (!isOurServe(s) || !s.pid) {
        process.stderr.write(`no remote serve running for ${s.workspace}\n`);
        return 0;
      }
      const r = await stopServe(conn.client, s.slug, s.pid);
      process.stdout.write(r === "stopped" ? `stopped remote serve ${s.pid}\n` : `remote serve ${s.pid} was not running\n`);
      return 0;
    }),
});

const logs = defineCommand<Common & { n: number; follow: boolean }>({
  command: "logs <name>",
  describe: "Print the remote serve's log (serve-<slug>.log)",
  builder: (y) =>
    common(y)
      .option("n", { alias: "lines", type: "number", default: 100, describe: "How many lines from the end" })
      .option("follow", { alias: "f", type: "boolean", default: false, describe: "Keep printing new lines until Ctrl-C" }) as Argv<any>,
  run: (a) =>
    withHost(a, async (conn, workspace) => {
      const { readRemoteState } = await import("../../remote/bootstrap/bootstrap.ts");
      const { LOGS_SCRIPT } = await import("../../remote/bootstrap/scripts.ts");
      const { REMOTE_SH, execChannel, shQuote } = await import("../../remote/ssh/exec.ts");
      const { buildInfo } = await import("../../core/version.ts");
      const { UsageError } = await import("../../core/errors.ts");
      if (!Number.isInteger(a.n) || a.n < 0) throw new UsageError(`-n wants a whole number of lines, got ${a.n}`);
      const s = await readRemoteState(conn.client, workspace, buildInfo().version, undefined, { allowMissing: true });
      const ch = await execChannel(conn.client, REMOTE_SH);
      ch.pipe(process.stdout, { end: false });
      ch.stderr.pipe(process.stderr, { end: false });
      let code: number | null = null;
      ch.on("exit", (c: number | null) => (code = c));
      // EOF on the channel makes the remote script stop tail; close outright if that stalls.
      const stopFollow = () => {
        ch.end();
        setTimeout(() => ch.close(), 2000).unref();
      };
      process.once("SIGINT", stopFollow);
      process.once("SIGTERM", stopFollow);
      // With --follow stdin stays open: its EOF is the remote's signal to stop.
      ch.write(`set -- ${[s.slug, String(a.n), a.follow ? "1" : "0"].map(shQuote).join(" ")}\n${LOGS_SCRIPT}\n`);
      if (!a.follow) ch.end();
      await new Promise<void>((r) => ch.on("close", () => r()));
      process.off("SIGINT", stopFollow);
      process.off("SIGTERM", stopFollow);
      return code === 0 || a.follow ? 0 : 1;
    }),
});

export const serveGroup = defineGroup("serve", "Manage the persistent remote serve: status, start, restart, stop, logs", [status, start, restart, stop, logs]);
