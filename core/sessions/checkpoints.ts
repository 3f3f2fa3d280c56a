import { existsSync, lstatSync, readFileSync, unlinkSync } from "node:fs";
import { writeFileAtomic } from "../fs/atomic.ts";
import type { SessionFile } from "./store.ts";
import { traceStart, traceStep } from "../trace.ts";

/**
 * Store a file's current content under `turn` before a writer changes it.
 * Only the first capture of a path per turn matters: it is the pre-turn state.
 */
export function captureFile(file: SessionFile, turn: number, absPath: string, seen: Set<string>): void {
  if (seen.has(absPath)) return;
  const t0 = traceStart();
  captureOnce(file, turn, absPath, seen);
  traceStep("tool:checkpoint", t0);
}

function captureOnce(file: SessionFile, turn: number, absPath: string, seen: Set<string>): void {
  let blob: string | null = null;
  let st;
  try {
    st = lstatSync(absPath);
  } catch {
    st = undefined;
  }
  if (st) {
    // Directories and special files are not content we can restore.
    if (!st.isFile()) return;
    blob = file.putBlob(readFileSync(absPath));
  }
  file.append({ t: "checkpoint", turn, path: absPath, blob });
  seen.add(absPath);
}

export interface RestoredFile {
  path: string;
  action: "restored" | "deleted";
}

/** Put every file touched in turns >= `turn` back to how it was before that turn. */
export function restoreFiles(file: SessionFile, turn: number): RestoredFile[] {
  const first = new Map<string, string | null>();
  for (const r of file.records) {
    if (r.t === "checkpoint" && r.turn >= turn && !first.has(r.path)) first.set(r.path, r.blob);
  }
  const out: RestoredFile[] = [];
  for (const [path, blob] of first) {
    if (blob === null) {
      if (existsSync(path)) {
        unlinkSync(path);
        out.push({ path, action: "deleted" });
      }
    } else {
      writeFileAtomic(path, file.getBlob(blob));
      out.push({ path, action: "restored" });
    }
  }
  return out;
}
