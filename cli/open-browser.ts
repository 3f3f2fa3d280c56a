/** Open `url` in the desktop browser; failing to is only worth a hint, never an error. */
export async function openBrowser(url: string): Promise<void> {
  const { spawn } = await import("node:child_process");
  const [cmd, ...argv] =
    process.platform === "darwin" ? ["open", url] : process.platform === "win32" ? ["cmd", "/c", "start", '""', url] : ["xdg-open", url];
  const hint = () => process.stderr.write(`could not start ${cmd}; open the URL above yourself\n`);
  try {
    const child = spawn(cmd!, argv, { stdio: "ignore", detached: true });
    child.on("error", hint);
    child.unref();
  } catch {
    hint();
  }
}
