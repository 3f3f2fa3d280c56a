import type { ToolDefinition } from "./types.ts";

/** Tools register themselves here; the entry point decides which modules to load. */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  register(tool: ToolDefinition): void {
    if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" registered twice`);
    this.tools.set(tool.name, tool);
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  /** Sorted by name so the tool schema block is byte-identical across requests. */
  list(enabled?: readonly string[]): ToolDefinition[] {
    const all = [...this.tools.values()].sort((a, b) => a.name.localeCompare(b.name));
    return enabled && enabled.length > 0 ? all.filter((t) => enabled.includes(t.name)) : all;
  }
}
