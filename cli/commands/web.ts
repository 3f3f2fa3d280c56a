import { defineCommand } from "../command.ts";
import { commonServeOptions, runServeCommand, type ServeArgs } from "./serve.ts";
import { openBrowser } from "../open-browser.ts";

/** `--port N` is `--addr 127.0.0.1:N`; anything else is a usage error that points to --addr. */
async function portAsAddr(args: ServeArgs & { port?: string }): Promise<void> {
  if (args.port === undefined) return;
  const { UsageError } = await import("../../core/errors.ts");
  const hint = "use --port N for 127.0.0.1:N (0-65535), or --addr HOST:PORT for another host";
  if (args.addr !== undefined) throw new UsageError("--port and --addr both set the listen address", hint);
  const n = String(args.port).trim();
  if (!/^\d{1,5}$/.test(n) || Number(n) > 65535) throw new UsageError(`invalid --port "${args.port}"`, hint);
  args.addr = `127.0.0.1:${Number(n)}`;
}

export default defineCommand<ServeArgs & { open: boolean; port?: string }>({
  command: "web",
  describe: "Start the browser UI on 127.0.0.1:8787 (next free port) and open it",
  builder: (y) =>
    commonServeOptions(y, "127.0.0.1:8787")
      .option("port", { type: "string", describe: "listen on 127.0.0.1:PORT (the same as --addr 127.0.0.1:PORT)" })
      .option("open", { type: "boolean", default: true, describe: "open the default browser (--no-open to only print the URL)" })
      .example("$0 web", "fresh token, opens the browser")
      .example("$0 web --no-open", "print the URL only") as never,
  run: async (args) => {
    await portAsAddr(args);
    // First use from a terminal with no provider at all: the setup wizard first, then the UI.
    const { ensureProviderOnFirstUse } = await import("../setup-prompts.ts");
    await ensureProviderOnFirstUse();
    return runServeCommand("web", args, {
      portRetries: 100,
      onReady: (url) => {
        if (args.open) void openBrowser(url);
      },
    });
  },
});
