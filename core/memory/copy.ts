/**
 * A fact file from anywhere (a backup, an archived copy, another machine):
 * read without blocking on a FIFO or a device, bounded, and validated as a
 * fact before the store sees it (`/memory recover`, `reasonix memory recover`).
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ReasonixError } from "../errors.ts";
import { InputRefused, readRegularFile } from "../fs/bounded-read.ts";
import { parseFact, type Fact } from "./fact.ts";
import { MAX_FACT_CHARS } from "./store.ts";

/** Front matter plus the longest fact, with room to spare. */
const MAX_COPY_BYTES = 64 * 1024;

/** `path` as typed: `~/…` is under the home directory, a relative path starts at `cwd`. */
export const copyPath = (path: string, cwd: string): string => (path === "~" || path.startsWith("~/") ? join(process.env.HOME || homedir(), path.slice(1)) : resolve(cwd, path));

export function readFactCopy(path: string, cwd: string): Fact {
  const abs = copyPath(path, cwd);
  let data: Buffer;
  try {
    data = readRegularFile(abs, MAX_COPY_BYTES, "a fact file");
  } catch (e) {
    const why = e instanceof InputRefused ? e.reason : (e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : e instanceof Error ? e.message : String(e);
    throw new ReasonixError("memory_not_found", `${abs}: ${why}`);
  }
  const fact = parseFact(abs, data.toString("utf8"));
  if (fact.text.length > MAX_FACT_CHARS) throw new ReasonixError("memory_too_large", `${abs}: a fact holds at most ${MAX_FACT_CHARS} characters (this one has ${fact.text.length})`);
  return fact;
}
