/**
 * Declared write paths of writer subagents: two writers may run at once only
 * when no path of one lies inside (or equals) a path of the other. A writer
 * that declared nothing overlaps everything.
 */
import { isAbsolute, relative, sep } from "node:path";
import { resolveReal } from "../policy/paths.ts";

/** Workspace-absolute prefixes of the declared paths (a glob counts from its first wildcard's folder), symlinks resolved. */
export function normalizeWritePaths(workspace: string, paths: readonly string[]): string[] {
  return paths.map((p) => {
    const wild = p.search(/[*?[{]/);
    const literal = wild < 0 ? p : p.slice(0, wild).replace(/[^/]*$/, "");
    return resolveReal(literal || ".", workspace);
  });
}

const inside = (a: string, b: string) => {
  const r = relative(b, a);
  return r === "" || (!r.startsWith(`..${sep}`) && r !== ".." && !isAbsolute(r));
};

/** Do two normalized path sets overlap? An empty set stands for "anywhere". */
export function pathsOverlap(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return true;
  return a.some((x) => b.some((y) => inside(x, y) || inside(y, x)));
}

/** Is `abs` (resolved with resolveReal) inside one of the normalized write paths? */
export function withinWritePaths(abs: string, paths: readonly string[]): boolean {
  return paths.some((p) => inside(abs, p));
}

/**
 * The write roots a child session's path policy is narrowed to (its file
 * tools, its bash sandbox, its hooks): none for a read-only child, the
 * declared paths for a writer that declared some; undefined: the session's own.
 */
export function childWriteScope(workspace: string, child: { readOnly: boolean; writePaths: readonly string[] } | undefined): string[] | undefined {
  if (!child) return undefined;
  if (child.readOnly) return [];
  return child.writePaths.length > 0 ? normalizeWritePaths(workspace, child.writePaths) : undefined;
}
