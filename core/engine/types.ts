// The engine's front-end contract lives in core/protocol/contract.ts (browser-safe,
// types only); engine code and front ends keep importing it from here. The one
// addition is the engine's memory, whose store is a host-side class and so
// cannot live in core/protocol.
export type * from "../protocol/contract.ts";
import type { Engine as ProtocolEngine } from "../protocol/contract.ts";

/** One engine per workspace, with its memory (core/memory). */
export interface Engine extends ProtocolEngine {
  /** Remembered facts of this workspace and what recall did (`/memory`, the web UI's Memory panel). */
  memory(): EngineMemory;
  /** Where session `id`'s queue of follow-up prompts lives (core/host/queue.ts), beside its log. */
  queueFile(id: string): string;
}

/** The engine's memory as front ends read and manage it (core/memory). */
export interface EngineMemory {
  /** This workspace's and the global facts (in the home of the machine the engine runs on). */
  readonly store: import("../memory/store.ts").MemoryStore;
  /** False when the user's config says `[memory] recall = false`. */
  readonly recallOn: boolean;
  /** What the last recall of session `id` chose, and why (none before its first real turn). */
  lastRecall(id: string): import("../memory/recall.ts").RecallTrace | undefined;
  /** The instruction files a session of this workspace reads, in order, with those skipped and why. */
  instructions(): import("./instructions.ts").InstructionScan;
}
