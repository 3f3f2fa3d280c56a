/**
 * The command registry: sources add entries, the catalog resolves names.
 * Collisions: project > user > built-in (an MCP prompt's `mcp__` names do not
 * collide with the others); at equal rank a command beats a skill and the
 * first source registered wins. A built-in that lost its name stays reachable
 * as `/reasonix:<name>`. Entries that are not loaded never take a name.
 */
import type { Catalog, CommandEntry, CommandSource, Shadowed } from "./types.ts";

const RANK: Record<CommandEntry["scope"], number> = { builtin: 0, mcp: 1, user: 2, project: 3 };
const KIND_RANK: Record<CommandEntry["kind"], number> = { command: 0, "mcp-prompt": 1, skill: 2, builtin: 3 };
export const BUILTIN_PREFIX = "reasonix:";

/** Does `a` win the name over `b`? */
const beats = (a: CommandEntry, b: CommandEntry): boolean => RANK[a.scope] > RANK[b.scope] || (RANK[a.scope] === RANK[b.scope] && KIND_RANK[a.kind] < KIND_RANK[b.kind]);

export class CommandRegistry {
  private readonly sources: CommandSource[] = [];
  private cached: Catalog | undefined;
  private cachedStamp = "";

  /** Add a source (replacing one with the same id). */
  registerSource(source: CommandSource): void {
    const i = this.sources.findIndex((s) => s.id === source.id);
    if (i >= 0) this.sources[i] = source;
    else this.sources.push(source);
    this.cached = undefined;
  }

  removeSource(id: string): void {
    const i = this.sources.findIndex((s) => s.id === id);
    if (i >= 0) this.sources.splice(i, 1);
    this.cached = undefined;
  }

  /** Forget the last catalog (files changed, a source's list changed). */
  invalidate(): void {
    this.cached = undefined;
  }

  catalog(): Catalog {
    const stamp = this.sources.map((s) => s.stamp?.() ?? "").join("\u0000");
    if (this.cached && stamp === this.cachedStamp) return this.cached;
    this.cachedStamp = stamp;
    const winners = new Map<string, CommandEntry>();
    const shadowed: Shadowed[] = [];
    const notLoaded: CommandEntry[] = [];
    for (const src of this.sources) {
      for (const e of src.list()) {
        if (e.notLoaded) {
          notLoaded.push(e);
          continue;
        }
        const held = winners.get(e.name);
        if (!held) winners.set(e.name, e);
        else if (beats(e, held)) {
          winners.set(e.name, e);
          shadowed.push({ entry: held, by: e });
        } else shadowed.push({ entry: e, by: held });
      }
    }
    const entries = [...winners.values()];
    for (const s of shadowed) {
      if (s.entry.scope !== "builtin") continue;
      const alias = `${BUILTIN_PREFIX}${s.entry.name}`;
      if (winners.has(alias)) continue;
      s.reachableAs = alias;
      const e = { ...s.entry, name: alias };
      winners.set(alias, e);
      entries.push(e);
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    this.cached = { entries, shadowed, notLoaded };
    return this.cached;
  }

  /** The entry `/name` runs (`reasonix:<name>` reaches a built-in even when it is not shadowed). */
  resolve(name: string): CommandEntry | undefined {
    const c = this.catalog();
    const hit = c.entries.find((e) => e.name === name);
    if (hit) return hit;
    if (name.startsWith(BUILTIN_PREFIX)) {
      const base = name.slice(BUILTIN_PREFIX.length);
      const b = c.entries.find((e) => e.name === base && e.scope === "builtin");
      return b ? { ...b, name } : undefined;
    }
    return undefined;
  }

  /** A listed entry that may not run, for the message that explains why. */
  blocked(name: string): CommandEntry | undefined {
    return this.catalog().notLoaded.find((e) => e.name === name);
  }
}
