// Bun macro: runs at bundle/transpile time, so the compiled binary carries the
// file contents and never reads docs/ or sandbox-profiles/ from disk.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export interface EmbeddedTree {
  files: Record<string, string>;
  /** SHA-256 over the sorted (path, content) pairs. */
  digest: string;
}

function walk(dir: string, root: string, out: Record<string, string>, accept: (p: string) => boolean): void {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, root, out, accept);
    else if (accept(name)) out[relative(root, full).split("\\").join("/")] = readFileSync(full, "utf8");
  }
}

function embed(sub: string, accept: (p: string) => boolean): EmbeddedTree {
  const root = join(import.meta.dir, "..", "..", sub);
  const files: Record<string, string> = {};
  walk(root, root, files, accept);
  const h = createHash("sha256");
  for (const [p, c] of Object.entries(files)) h.update(`${p}\0${c.length}\0${c}`);
  return { files, digest: h.digest("hex") };
}

/** An embedded tree packed as gzipped JSON (base64): the docs, a third of their size in the binary. */
export interface PackedTree {
  packed: string;
  digest: string;
}

export function embedDocs(): PackedTree {
  const tree = embed("docs", (n) => n.endsWith(".md"));
  return { packed: Buffer.from(Bun.gzipSync(JSON.stringify(tree.files), { level: 9 })).toString("base64"), digest: tree.digest };
}

export function embedSandboxProfiles(): EmbeddedTree {
  return embed("sandbox-profiles", (n) => !n.startsWith("."));
}
