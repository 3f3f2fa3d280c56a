// Loaded before every `bun test` run (bunfig.toml [test] preload): hooks that
// span the whole run. The global afterAll removes the temporary builds the
// run made (scripts/lib/temp-dirs.ts: bun test fires no "exit" event).
import { afterAll } from "bun:test";
import { removeTempDirs } from "./temp-dirs.ts";

afterAll(removeTempDirs);
