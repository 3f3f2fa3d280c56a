#!/usr/bin/env bun
// Entry point. `--version` is answered before anything else is loaded so it
// stays instant; the chat on a terminal and the common forms of `run` skip the
// argument parser, and so does `serve` as a remote connect starts it;
// everything else goes through the yargs app.
import { buildInfo } from "../core/version.ts";
import { traceFile, traceMark } from "../core/trace.ts";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  // console.log, not process.stdout: touching process.stdout costs ~13 ms at startup.
  console.log(`reasonix ${buildInfo().version}`);
} else {
  traceMark("main");
  if (traceFile()) process.on("exit", () => traceMark("exit"));
  // `reasonix … | head` closes stdout early; that is not an error.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
  // An error nothing caught: report it like any other (a crash report is kept,
  // see cli/crash.ts) and exit 1, as Bun would have.
  let dying = false;
  const fatal = (e: unknown) => {
    // A second fatal error (say, reporting the first one threw) just exits.
    if (dying) process.exit(1);
    dying = true;
    void import("./output.ts").then(({ reportError }) => process.exit(reportError(e))).catch(() => process.exit(1));
  };
  process.on("uncaughtException", fatal).on("unhandledRejection", fatal);
  // No top-level await: it would make the whole bundle an async module.
  const done = (code: number) => {
    process.exitCode = code;
  };
  if (argv.length === 0 && process.stdin.isTTY && process.stdout.isTTY) {
    // Plain `reasonix` on a terminal opens the chat, without loading the
    // argument parser and every command (first frame fast); without a
    // terminal it stays a usage error.
    Promise.all([import("./commands/chat.ts"), import("./output.ts")]).then(([{ chatMain }, { reportError }]) => chatMain({}).catch(reportError).then(done));
  } else if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) {
    // The top-level page only lists commands: laid out without yargs (~50 ms less CPU).
    Promise.all([import("./top-help.ts"), import("./commands/index.ts")]).then(([{ renderTopHelp }, { commands }]) => {
      const page = renderTopHelp(commands);
      if (page !== null) process.stdout.write(page);
      else import("./app.ts").then(({ runCli }) => runCli(argv)).then(done);
    });
  } else if (argv[0] === "run") {
    // The common forms of `run` skip yargs (cli/run-args.ts); anything else gets the full parser.
    import("./run-args.ts").then(({ fastRunArgs }) => {
      const args = fastRunArgs(argv.slice(1));
      if (!args) return import("./app.ts").then(({ runCli }) => runCli(argv));
      return import("./commands/run.ts").then(({ runCommand }) => runCommand(args)).catch((e) => import("./output.ts").then(({ reportError }) => reportError(e)));
    }).then(done);
  } else if (argv[0] === "serve") {
    // The form a remote connect starts serve with skips yargs too (cli/serve-args.ts).
    import("./serve-args.ts").then(({ fastServeArgs }) => {
      const args = fastServeArgs(argv.slice(1));
      if (!args) return import("./app.ts").then(({ runCli }) => runCli(argv));
      return import("./commands/serve.ts").then(({ serveMain }) => serveMain(args)).catch((e) => import("./output.ts").then(({ reportError }) => reportError(e)));
    }).then(done);
  } else import("./app.ts").then(({ runCli }) => runCli(argv)).then(done);
}
