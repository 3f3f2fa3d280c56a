// The engine's public surface for front ends (run, serve/web).
export { createEngine, resolveWorkspace } from "./engine.ts";
export type * from "./types.ts";
