// Temporary directories a build or test process removes when it is done.
// `bun test` fires no process "exit" event (checked with bun 1.4.5), so an exit
// handler alone left a 168 MiB compiled build in /tmp per test process until
// the disk filled: under `bun test` the preload's global afterAll
// (scripts/lib/test-preload.ts) removes them; elsewhere the exit handler does.
import { rmSync } from "node:fs";

const dirs = new Set<string>();

export function removeTempDirs(): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs.clear();
}

/** Remove `dir` when this process is done (after the last test file under `bun test`). */
export function removeWhenDone(dir: string): void {
  if (dirs.size === 0) process.once("exit", removeTempDirs);
  dirs.add(dir);
}
