// `reasonix remote connect NAME` / `remote open NAME`: the foreground
// supervisor. Heavy modules load inside the handler.
import type { Argv } from "yargs";
import { defineCommand } from "../command.ts";
import { openBrowser } from "../open-browser.ts";
import { dim, printJsonLine, warn } from "../output.ts";

interface ConnectArgs {
  name: string;
  open: boolean;
  localPort?: number;
  workspace?: string;
  acceptNew: boolean;
  json: boolean;
}

const fmtBytes = (n: number) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${Math.round(n / 1024)} KiB`);

/** Human-readable rendering of supervisor events (stderr, except the ready line). */
function humanReporter(name: string) {
  const tty = !!process.stderr.isTTY;
  let bar = false;
  let url = "";
  // One status line per outage: rewritten in place on a terminal (reason, time
  // down, next try); elsewhere printed once, and the last reason told on recovery.
  // The time down counts from the last bytes the lost link delivered (`silent_ms`).
  let outage: { since: number; first: string; last: string } | null = null;
  const outageLine = (reason: string, extra = "", silentMs = 0) => {
    const fresh = !outage;
    outage ??= { since: Date.now() - silentMs, first: reason, last: reason };
    outage.last = reason;
    const secs = Math.round((Date.now() - outage.since) / 1000);
    if (tty) {
      process.stderr.write(`\r\x1b[K${name}: link down${secs ? ` for ${secs} s` : ""}: ${reason}${extra}`);
      bar = true;
    } else if (fresh) process.stderr.write(`${name}: link down: ${reason}; reconnecting\n`);
  };
  const clearBar = () => {
    if (bar) process.stderr.write("\r\x1b[K");
    bar = false;
  };
  return (e: import("../../remote/supervisor/supervisor.ts").SupervisorEvent) => {
    const inPlace = e.event === "installing" || e.event === "waiting_for_lock" || (outage && (e.event === "reconnecting" || e.event === "connecting" || e.event === "connected" || (e.event === "error" && !e.terminal)));
    if (!inPlace) clearBar();
    switch (e.event) {
      case "connecting":
        if (e.attempt === 0) process.stderr.write(dim(`connecting to ${name}…\n`, process.stderr));
        break;
      case "installing":
        if (e.phase === "npm") process.stderr.write("installing reasonix on the remote with npm…\n");
        else if (tty && e.total > 0) {
          const pct = Math.floor((e.done / e.total) * 100);
          const w = 30;
          const fill = Math.round((pct / 100) * w);
          process.stderr.write(`\r\x1b[K${e.phase.padEnd(8)} [${"#".repeat(fill)}${" ".repeat(w - fill)}] ${pct}% ${fmtBytes(e.done)}/${fmtBytes(e.total)}`);
          bar = true;
        }
        break;
      case "install_source": {
        const what =
          e.source === "remote_download"
            ? `the remote downloads ${e.url}`
            : e.source === "cached"
            ? `sending the ${e.codec} copy made earlier${e.bytes ? ` (${fmtBytes(e.bytes)})` : ""}`
            : e.source === "raw"
              ? "sending the binary uncompressed"
              : e.adaptive
                ? `sending it in ${e.codec} segments, compressed as much as the link calls for`
                : `compressing with ${e.codec} -${e.level} while sending`;
        process.stderr.write(dim(`installing reasonix on the remote: ${what}\n`, process.stderr));
        break;
      }
      case "install_fallback":
        process.stderr.write(dim(`${e.from === "remote_download" ? "the remote could not download the release" : e.from}: ${e.reason}; uploading it instead\n`, process.stderr));
        break;
      case "installed":
        if (e.bytes === 0) process.stderr.write(`installed reasonix on the remote (downloaded there: ${fmtBytes(e.binary_size)}, ${e.codec}, ${(e.ms / 1000).toFixed(1)} s)\n`);
        else {
          const runs = (e.levels ?? []).map((r) => (r.level === 0 ? "raw" : `-${r.level}`));
          const levels = runs.length ? `, levels ${(runs.length > 8 ? [...runs.slice(0, 4), "…", ...runs.slice(-3)] : runs).join(" > ")}` : "";
          const link = e.link_bytes_per_s ? `, link ~${fmtBytes(e.link_bytes_per_s)}/s` : "";
          process.stderr.write(`installed reasonix on the remote (${fmtBytes(e.bytes)} sent for a ${fmtBytes(e.binary_size)} binary, ${e.codec}${levels}${link}, ${(e.ms / 1000).toFixed(1)} s)\n`);
        }
        break;
      case "waiting_for_lock": {
        const what = e.phase ? `${e.phase}${e.total ? ` ${Math.floor(((e.done ?? 0) / e.total) * 100)}%` : ""}` : "busy";
        const line = `waiting for another client setting up the remote serve (${what})`;
        if (tty) {
          process.stderr.write(`\r\x1b[K${line}`);
          bar = true;
        } else process.stderr.write(`${line}\n`);
        break;
      }
      case "stopping_old":
        process.stderr.write(`stopping remote serve ${e.pid} (version ${e.version})\n`);
        break;
      case "starting":
        process.stderr.write(dim("starting the remote serve…\n", process.stderr));
        break;
      case "forward":
        if (e.status === "failed") warn(`${e.spec}: ${e.message}`);
        break;
      case "ready":
        if (e.reconnect) {
          const o = outage as { since: number; first: string; last: string } | null;
          const downMs = e.outage_ms ?? (o ? Date.now() - o.since : 0);
          const down = o ? ` after ${Math.round(downMs / 1000)} s${!tty && o.last !== o.first ? ` (last error: ${o.last})` : ""}` : "";
          outage = null;
          process.stderr.write(`reconnected${down} (remote serve ${e.pid})\n`);
          // The token survives restarts, so this is rare; when it does change, say where to go now.
          if (e.url !== url) process.stdout.write(`ready: ${e.url}\n`);
        } else {
          process.stderr.write(dim(`remote serve ${e.pid} ${e.reused ? "reused" : "started"}, workspace ${e.workspace}\n`, process.stderr));
          process.stdout.write(`ready: ${e.url}\n`);
        }
        url = e.url;
        break;
      case "serve_lost":
        process.stderr.write(`remote serve ${e.pid} stopped answering (${e.reason}); restarting it\n`);
        break;
      case "serve_restarted":
        process.stderr.write(`remote serve restarted (pid ${e.pid}); same URL\n`);
        if (e.url !== url) process.stdout.write(`ready: ${e.url}\n`);
        url = e.url;
        break;
      case "disconnected":
        outageLine(e.reason, "", e.silent_ms);
        break;
      case "reconnecting":
        outageLine(e.reason, tty ? `; retrying in ${(e.delay_ms / 1000).toFixed(1)} s (attempt ${e.attempt})` : "");
        break;
      case "error":
        // During an outage the reason shows on the status line (the next "reconnecting").
        if (!e.terminal && !outage) process.stderr.write(dim(`${e.message}${e.hint ? ` (${e.hint})` : ""}\n`, process.stderr));
        break;
    }
  };
}

/** credentials = "local-proxy": this machine's [[providers]] and .env, served to the remote through a proxy. */
async function localProviderLink() {
  const { loadConfig } = await import("../../core/config/load.ts");
  const { reasonixHome, homePaths } = await import("../../core/home.ts");
  const { providerEntries } = await import("../../core/providers/config.ts");
  const { SecretStore } = await import("../../core/secrets/dotenv.ts");
  const { ProviderLink } = await import("../../remote/supervisor/provider-link.ts");
  const home = reasonixHome();
  const values = loadConfig({ cwd: home, home }).values;
  const secrets = new SecretStore(homePaths(home).dotenv);
  const dm = values.default_model;
  return new ProviderLink({
    entries: providerEntries(values),
    deps: { secret: (n) => secrets.get(n), secretsFile: secrets.path },
    ...(typeof dm === "string" && dm ? { defaultModel: dm } : {}),
  });
}

export async function runConnect(a: ConnectArgs): Promise<number> {
  if (process.env.REASONIX_TEST_CRASH) (await import("../test-crash.ts")).testCrash("remote");
  const { getHost, loadRemoteSettings } = await import("../../remote/hosts/store.ts");
  const { resolveTarget } = await import("../../remote/hosts/resolve.ts");
  const { connectSsh } = await import("../../remote/ssh/connect.ts");
  const { Supervisor } = await import("../../remote/supervisor/supervisor.ts");
  const { ServeCache } = await import("../../remote/supervisor/serve-cache.ts");
  const { tcpReachable } = await import("../../remote/supervisor/backoff.ts");
  const { fromConfig, exposureWarning } = await import("../../remote/forwards/spec.ts");
  const { ReasonixError } = await import("../../core/errors.ts");

  const settings = loadRemoteSettings();
  for (const w of settings.warnings) warn(w);
  const host = getHost(a.name);
  const target = await resolveTarget(host, { hosts: settings.hosts, warn });
  const first = target.jumps?.[0] ?? target;
  const forwards = (host.forwards ?? []).map(fromConfig);
  for (const f of forwards) {
    const w = exposureWarning(f);
    if (w) warn(w);
  }
  // The link is declared dead after interval × (count_max + 1) of silence (no bytes at
  // all from the server); keep that within the 6 s we promise.
  const kaCount = Math.max(1, settings.keepaliveCountMax);
  const kaInterval = Math.max(250, Math.min(settings.keepaliveIntervalMs, Math.floor(6_000 / (kaCount + 1))));
  const human = humanReporter(a.name);
  let terminal: { message: string; hint?: string } | null = null;
  let everReady = false;
  let installing = false;
  const healthMs = Number(process.env.REASONIX_REMOTE_HEALTH_MS);
  const providerLink = host.credentials === "local-proxy" ? await localProviderLink() : null;
  // Usage counters (docs/telemetry.md: surface "remote", only with [telemetry] mode = on): a link back after an outage is recovery.resume.
  const { UsageCounters } = await import("../../core/telemetry/counters.ts");
  const counters = new UsageCounters();
  const sup = new Supervisor({
    host: a.name,
    dial: () =>
      connectSsh(target, {
        acceptNew: a.acceptNew,
        keepaliveIntervalMs: kaInterval,
        keepaliveCountMax: kaCount,
        warn,
      }),
    probe: () => tcpReachable(first.host, first.port, 500),
    bootstrap: {
      workspace: a.workspace ?? host.workspace ?? "~",
      install: host.serve_install ?? "auto",
    },
    localPort: a.localPort,
    forwards,
    onServeDied: (d) => void import("../crash.ts").then(({ recordChildDeath }) => recordChildDeath("remote", `the remote serve (pid ${d.pid})`, d.reason, d.log)),
    cache: new ServeCache(),
    providerLink,
    ...(Number.isInteger(healthMs) && healthMs > 0 ? { healthIntervalMs: healthMs } : {}),
    onEvent: (e) => {
      if (e.event === "ready") everReady = true;
      if (e.event === "ready" && e.reconnect) counters.bump("recovery", "resume");
      if (e.event === "installing") installing = true;
      if (a.json) printJsonLine(e);
      else human(e);
      if (e.event === "error" && e.terminal) terminal = { message: e.message, hint: e.hint };
      if (e.event === "ready" && !e.reconnect && a.open) void openBrowser(e.url);
    },
  });
  const stop = () => sup.stop();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const code = await sup.run();
    if (code !== 0 && terminal && !a.json) {
      const t = terminal as { message: string; hint?: string };
      throw new ReasonixError("remote_connect", t.message, { hint: t.hint, exitCode: code as 1 });
    }
    if (!a.json && code === 0) {
      // Say what is true: before the first "ready" no serve of ours was started this time.
      const msg = everReady
        ? "local side closed; the remote serve keeps running"
        : installing
          ? "stopped during the install: no remote serve was started, the partial upload is discarded and the lock released"
          : "stopped before the remote serve was ready; nothing was started";
      process.stderr.write(dim(`${msg}\n`, process.stderr));
    }
    return code;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await (await import("../../core/telemetry/session.ts")).finishSurface((await import("../../core/home.ts")).reasonixHome(), "remote", counters);
  }
}

const options = (y: Argv) =>
  y
    .positional("name", { type: "string", demandOption: true, describe: "Configured host (see `reasonix remote list`)" })
    .option("local-port", { type: "number", describe: "Local port for the tunnel (default: any free port)" })
    .option("workspace", { type: "string", describe: "Remote workspace directory (default: the host's workspace, else ~)" })
    .option("accept-new", { type: "boolean", default: false, describe: "Trust and record a host key seen for the first time" })
    .option("json", { type: "boolean", default: false, describe: "One JSON event per line on stdout" });

export const connect = defineCommand<ConnectArgs>({
  command: "connect <name>",
  describe: "Start (or reuse) the remote serve and keep a tunnel to it open; Ctrl-C leaves the serve running",
  builder: (y) =>
    options(y)
      .option("open", { type: "boolean", default: false, describe: "Open the URL in a browser once ready (--no-open to not)" })
      .example("$0 remote connect gpu-box --open", "tunnel to gpu-box and open the web UI") as Argv<any>,
  run: (a) => runConnect(a),
});

export const open = defineCommand<ConnectArgs>({
  command: "open <name>",
  describe: "Same as `remote connect NAME --open`",
  builder: (y) => options(y) as Argv<any>,
  run: (a) => runConnect({ ...a, open: true }),
});
