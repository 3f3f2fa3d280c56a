/**
 * Tools that come from outside the binary (MCP servers today): they may
 * arrive late, change, or disappear. The engine asks a source for a snapshot
 * at a turn boundary only (see LiveSession), so the tool block of the prompt
 * — part of the cached prefix — changes at most once per change.
 */
import type { ToolDefinition } from "./types.ts";

export interface ToolSnapshot {
  /** Changes whenever `tools` does (compare, never interpret). */
  version: number;
  /** Sorted by name. */
  tools: ToolDefinition[];
}

export interface ToolSource {
  /** Wait for tools still coming online, bounded by the source's own short grace period (or the signal). */
  settle(signal?: AbortSignal): Promise<void>;
  snapshot(): ToolSnapshot;
  close(): Promise<void>;
  /** What went wrong since the last call (e.g. a server that failed to start), each said once. */
  takeWarnings?(): string[];
  /** Why a tool name that is not in the snapshot cannot be used (its server is down), if the source knows it. */
  unavailable?(name: string): string | undefined;
}

/** One source over several (undefined when there are none). */
export function combineSources(list: ToolSource[]): ToolSource | undefined {
  if (list.length <= 1) return list[0];
  let last = "";
  let version = 0;
  return {
    settle: async (signal) => void (await Promise.all(list.map((s) => s.settle(signal)))),
    snapshot() {
      const snaps = list.map((s) => s.snapshot());
      const key = snaps.map((s) => s.version).join(",");
      if (key !== last) (last = key), version++;
      return { version, tools: snaps.flatMap((s) => s.tools).sort((a, b) => a.name.localeCompare(b.name)) };
    },
    close: async () => void (await Promise.all(list.map((s) => s.close()))),
    takeWarnings: () => list.flatMap((s) => s.takeWarnings?.() ?? []),
    unavailable: (name) => list.map((s) => s.unavailable?.(name)).find((w) => w !== undefined),
  };
}
