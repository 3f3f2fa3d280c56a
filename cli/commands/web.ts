import { defineCommand } from "../command.ts";
import { commonServeOptions, runServeCommand, type ServeArgs } from "./serve.ts";
import { openBrowser } from "../open-browser.ts";

export default defineCommand<ServeArgs & { open: boolean }>({
  command: "web",
  describe: "Start the browser UI on 127.0.0.1:8787 (next free port) and open it",
  builder: (y) =>
    commonServeOptions(y, "127.0.0.1:8787")
      .option("open", { type: "boolean", default: true, describe: "open the default browser (--no-open to only print the URL)" })
      .example("$0 web", "fresh token, opens the browser")
      .example("$0 web --no-open", "print the URL only") as never,
  run: async (args) => {
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
