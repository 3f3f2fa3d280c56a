import { defineCommand } from "../command.ts";
import { commonServeOptions, runServeCommand, type ServeArgs } from "./serve.ts";

/** Open `url` in the desktop's default browser; failure is only a hint. */
async function openBrowser(url: string): Promise<void> {
  const { spawn } = await import("node:child_process");
  const [cmd, ...argv] =
    process.platform === "darwin" ? ["open", url] : process.platform === "win32" ? ["cmd", "/c", "start", '""', url] : ["xdg-open", url];
  try {
    const child = spawn(cmd!, argv, { stdio: "ignore", detached: true });
    child.on("error", () => process.stderr.write(`could not start ${cmd}; open the URL above yourself\n`));
    child.unref();
  } catch {
    process.stderr.write(`could not start ${cmd}; open the URL above yourself\n`);
  }
}

export default defineCommand<ServeArgs & { open: boolean }>({
  command: "web",
  describe: "Start the browser UI on 127.0.0.1:8787 (next free port) and open it",
  builder: (y) =>
    commonServeOptions(y, "127.0.0.1:8787")
      .option("open", { type: "boolean", default: true, describe: "open the default browser (--no-open to only print the URL)" })
      .example("$0 web", "fresh token, opens the browser")
      .example("$0 web --no-open", "print the URL only") as never,
  run: (args) =>
    runServeCommand("web", args, {
      portRetries: 100,
      onReady: (url) => {
        if (args.open) void openBrowser(url);
      },
    }),
});
