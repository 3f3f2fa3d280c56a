import { defineCommand } from "../command.ts";

interface AcpArgs {
  auto: boolean;
}

export default defineCommand<AcpArgs>({
  command: "acp",
  describe: "Serve the Agent Client Protocol on stdin/stdout (for editors such as Zed)",
  builder: (y) =>
    y
      .option("auto", { alias: "y", type: "boolean", default: false, describe: "Start sessions in auto mode (writers and commands no rule holds back run without asking)" })
      .example("reasonix acp", "editors start this themselves; see `reasonix docs show acp.md`")
      .epilog("stdout carries only ACP frames; logs go to stderr and $REASONIX_HOME/logs/acp.log. Exit code 0 when the client hangs up.") as any,
  run: async (args) => {
    if (process.env.REASONIX_TEST_CRASH) (await import("../test-crash.ts")).testCrash("acp");
    const { Readable, Writable } = await import("node:stream");
    const { reasonixHome } = await import("../../core/home.ts");
    const { acpLog } = await import("../../core/acp/log.ts");
    const { serveAcp } = await import("../../core/acp/agent.ts");
    // stdout is the protocol channel: stray console output from any library goes to stderr.
    const { format } = await import("node:util");
    const toStderr = (...a: unknown[]) => void process.stderr.write(`${format(...a)}\n`);
    console.log = console.info = console.debug = console.warn = toStderr;
    const home = reasonixHome();
    const log = acpLog(home);
    const input = Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>;
    const output = Writable.toWeb(process.stdout) as unknown as WritableStream<Uint8Array>;
    log.info(`ACP agent ${process.pid} ready`);
    // Usage counters (docs/telemetry.md: surface "acp", only with [telemetry] mode = on): every session the editor opens.
    const { UsageCounters } = await import("../../core/telemetry/counters.ts");
    const counters = new UsageCounters();
    const onSessionOpen = (session: Parameters<typeof counters.follow>[0]) => void counters.follow(session);
    await serveAcp(input, output, { home, log, engine: { ...(args.auto ? { permissionMode: "auto" as const } : {}), onSessionOpen } });
    log.info("client hung up");
    await (await import("../../core/telemetry/session.ts")).finishSurface(home, "acp", counters);
    return 0;
  },
});
