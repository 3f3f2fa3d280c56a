// Shared by the command, skill and hook tests: writing fixture files and
// approving a workspace with the real `reasonix trust --yes`.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const repo = join(import.meta.dir, "../../..");

export function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** `reasonix trust --yes` in `ws` with `home` as $REASONIX_HOME (the real CLI). */
export async function trustCli(home: string, ws: string): Promise<void> {
  const p = Bun.spawn([process.execPath, join(repo, "cli/main.ts"), "trust", "--yes"], { cwd: ws, env: { ...process.env, REASONIX_HOME: home, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
  const code = await p.exited;
  if (code !== 0) throw new Error(`reasonix trust --yes exited ${code}: ${await new Response(p.stderr).text()}`);
}
