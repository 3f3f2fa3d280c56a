import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A URL carrying a secret (`#token=…`) must not go on a command line, where
 * any local user can read it with `ps`. Like Jupyter, hand the browser a 0600
 * file that redirects to the URL instead, and remove it once it has been read.
 */
export function browserLaunchTarget(url: string): { target: string; cleanup?: () => void } {
  if (!url.includes("#token=")) return { target: url };
  const file = join(tmpdir(), `reasonix-open-${randomBytes(8).toString("hex")}.html`);
  const js = JSON.stringify(url).replace(/</g, "\\u003c");
  writeFileSync(file, `<!doctype html><meta charset="utf-8"><title>Reasonix</title><script>location.replace(${js})</script>\n`, { mode: 0o600, flag: "wx" });
  return { target: file, cleanup: () => rmSync(file, { force: true }) };
}

/** Open `url` in the desktop browser; failing to is only worth a hint, never an error. */
export async function openBrowser(url: string): Promise<void> {
  const { spawn } = await import("node:child_process");
  const { target, cleanup } = browserLaunchTarget(url);
  const [cmd, ...argv] =
    process.platform === "darwin" ? ["open", target] : process.platform === "win32" ? ["cmd", "/c", "start", '""', target] : ["xdg-open", target];
  const hint = () => {
    cleanup?.();
    process.stderr.write(`could not start ${cmd}; open the URL above yourself\n`);
  };
  try {
    const child = spawn(cmd!, argv, { stdio: "ignore", detached: true });
    child.on("error", hint);
    child.unref();
    // Browsers read the file within moments of being launched.
    if (cleanup) setTimeout(cleanup, 30_000).unref();
  } catch {
    hint();
  }
}
