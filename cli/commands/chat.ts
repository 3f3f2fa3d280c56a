import { defineCommand } from "../command.ts";
import { PERMISSION_MODES, type PermissionMode } from "../../core/protocol/modes.ts";

interface ChatCliArgs {
  prompt?: string[];
  model?: string;
  permissionMode?: string;
  addDir?: string[];
  dir?: string;
  continue: boolean;
  resume?: string;
  lineMode: boolean;
}


/**
 * Full-screen chat needs a terminal on both ends that understands cursor
 * movement. NO_COLOR only drops colour (cli/chat/theme.ts), not the interface.
 */
export const canDrawFullScreen = (env: NodeJS.ProcessEnv = process.env): boolean =>
  !!process.stdin.isTTY && !!process.stdout.isTTY && env.TERM !== "dumb";

/** `reasonix chat` (and plain `reasonix` on a terminal, which skips the argument parser for speed). */
export async function chatMain(args: Partial<ChatCliArgs>): Promise<number> {
  if (process.env.REASONIX_TEST_CRASH) (await import("../test-crash.ts")).testCrash("chat");
  const { UsageError } = await import("../../core/errors.ts");
  if (args.continue && args.resume !== undefined) throw new UsageError("use either -c/--continue or --resume [ID], not both");
  const first = (args.prompt ?? []).join(" ").trim() || undefined;
  const opts = {
    model: args.model,
    permissionMode: args.permissionMode as PermissionMode | undefined,
    addDir: args.addDir,
    dir: args.dir,
    continue: args.continue,
    resume: args.resume,
  };
  {
    const { resolve } = await import("node:path");
    const { reasonixHome } = await import("../../core/home.ts");
    const { realWorkspace } = await import("../../core/trust/index.ts");
    const { beforeChat } = await import("../chat/first-use.ts");
    await beforeChat(realWorkspace(resolve(args.dir ?? process.cwd())), reasonixHome());
  }
  if (args.lineMode || !canDrawFullScreen()) {
    const [{ setupChat }, { runLineMode }, { webStarter }] = await Promise.all([import("../chat/setup.ts"), import("../chat/line-mode.ts"), import("../chat/web.ts")]);
    const setup = await setupChat(opts);
    return runLineMode(setup, first, webStarter(setup));
  }
  // Draw first, load the engine after (see runChatApp).
  const { withLazySegmenter } = await import("../chat/lazy-segmenter.ts");
  const { runChatApp } = await withLazySegmenter(() => import("../chat/app.ts"));
  const { realpathSync } = await import("node:fs");
  const { resolve } = await import("node:path");
  const { reasonixHome } = await import("../../core/home.ts");
  let workspace = resolve(args.dir ?? process.cwd());
  try {
    workspace = realpathSync(workspace);
  } catch {
    // setupChat reports a missing workspace with the proper error.
  }
  return runChatApp(
    async () => (await import("../chat/setup.ts")).setupChat(opts),
    { workspace, home: reasonixHome() },
    first,
    (setup) => {
      let start: (() => Promise<string>) | undefined;
      return async () => {
        start ??= (await import("../chat/web.ts")).webStarter(setup);
        return start();
      };
    },
  );
}

export default defineCommand<ChatCliArgs>({
  command: "chat [prompt..]",
  describe: "Chat with the agent in this terminal (also: plain `reasonix` on a terminal)",
  builder: (y) =>
    y
      .positional("prompt", { type: "string", array: true, describe: "A first message to send" })
      .option("model", { alias: "m", type: "string", describe: "Provider entry (or entry/model) to use instead of default_model" })
      .option("permission-mode", { type: "string", choices: [...PERMISSION_MODES], describe: "Permission mode to start in (Shift+Tab cycles ask → auto → plan)" })
      .option("add-dir", { type: "string", array: true, nargs: 1, describe: "Extra directory the file tools may write (repeat for several)" })
      .option("dir", { type: "string", describe: "Workspace directory (default: current directory)" })
      .option("continue", { alias: "c", type: "boolean", default: false, describe: "Continue the latest session of this workspace" })
      .option("resume", { type: "string", describe: "Continue the session with this id (a picker when no id is given)" })
      .option("line-mode", { type: "boolean", default: false, describe: "Plain line-by-line interface (automatic with TERM=dumb or without a terminal)" })
      .example("reasonix", "on a terminal: open the chat for the current directory")
      .example('reasonix chat "why does the build fail?"', "")
      .example("reasonix chat --resume", "pick an earlier session")
      .epilog("Keys: Enter sends, Shift+Enter/Alt+Enter new line, Esc cancels, Shift+Tab cycles the mode, Ctrl-O verbose, Ctrl-L clears the screen, / opens commands (/theme, /verbose, /clear…), @ completes paths, Ctrl-D or Ctrl-C twice exits.") as any,
  run: (args) => chatMain(args),
});
