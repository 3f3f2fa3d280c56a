#!/usr/bin/env bun
// Entry point. `--version` is answered before anything else is loaded so it
// stays instant; everything else goes through the yargs app.
import { buildInfo } from "../core/version.ts";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  process.stdout.write(`reasonix ${buildInfo().version}\n`);
} else {
  // `reasonix … | head` closes stdout early; that is not an error.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
  const { runCli } = await import("./app.ts");
  process.exitCode = await runCli(argv);
}
