/**
 * The on-disk index of one facts folder, so the first recall of a process
 * does not read and parse every fact file: the parsed facts and their BM25
 * statistics, each file with the stamp it had (inode, size, mtime, ctime).
 * It lives beside the folder (`<scope>/facts.index.json`, under the home,
 * never in a repository), is written atomically with mode 0600, and is never
 * trusted: one that is not ours (owner, mode), not for this folder, of
 * another format, or whose checksum or shape is off is ignored and rebuilt,
 * and a fact in it is used only while its file still has the recorded stamp.
 *
 * A stamp is trusted only when it is older than the moment the index was
 * begun (by the file system's own clock): a file changed within the same
 * clock tick as the look could keep its stamp, so such a file, or such a
 * folder listing, is recorded with an empty stamp and read again next time.
 */
import { lstatSync, readFileSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { bm25Part, isBm25Part, type Bm25Part } from "../docs/bm25.ts";
import type { AtomicWrite } from "../fs/atomic.ts";
import { FACT_SCOPES, FACT_TYPES, ID_PATTERN, type Fact } from "./fact.ts";

const FORMAT = "reasonix-memory-index";
const VERSION = 1;

export interface IndexedFile {
  /** "" when the file must be read again (it changed too recently to trust the stamp). */
  stamp: string;
  /** Absent for a file that is not a readable fact (read again every time). */
  fact?: Fact;
}

export interface DirIndex {
  /** The folder's own stamp when listed ("" when it changed too recently). */
  dirStamp: string;
  /** By file name, sorted. */
  files: Map<string, IndexedFile>;
  /** BM25 statistics of the facts, in file order. */
  part: Bm25Part;
}

export const indexPath = (factsDir: string): string => join(dirname(factsDir), "facts.index.json");

export const fileStamp = (st: Stats): string => `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;

/** What recall searches in a fact: its text and its type. */
export const factPart = (facts: Fact[]): Bm25Part => bm25Part(facts.map((f) => [[f.text, 1], [f.type, 1]]));

const checksum = (body: string) => Bun.hash(body).toString(16);

const isDateText = (x: unknown): x is string => typeof x === "string" && /^\d{4}-\d{2}-\d{2}T/.test(x);

/**
 * One file's row: [name, stamp] for a file that is not a fact, else
 * [name, stamp, revision, created, updated, type, scope, text] (the id is the
 * name); undefined when the row is not one.
 */
function fileRow(e: unknown): [string, IndexedFile] | undefined {
  if (!Array.isArray(e) || (e.length !== 2 && e.length !== 8)) return undefined;
  const name = e[0], stamp = e[1];
  if (typeof name !== "string" || !name.endsWith(".md") || name.includes("/") || typeof stamp !== "string") return undefined;
  if (e.length === 2) return [name, { stamp }];
  const fact = { id: name.slice(0, -3), revision: e[2], created: e[3], updated: e[4], type: e[5], scope: e[6], text: e[7] } as Fact;
  const ok =
    ID_PATTERN.test(fact.id) && Number.isInteger(fact.revision) && fact.revision > 0 && isDateText(fact.created) && isDateText(fact.updated) &&
    (FACT_TYPES as readonly string[]).includes(fact.type) && (FACT_SCOPES as readonly string[]).includes(fact.scope) && typeof fact.text === "string" && fact.text.trim() !== "";
  return ok ? [name, { stamp, fact }] : undefined;
}

/** The folder's index as last written, or undefined when there is none or it cannot be trusted. */
export function loadDirIndex(factsDir: string): DirIndex | undefined {
  const path = indexPath(factsDir);
  try {
    const st = lstatSync(path);
    if (!st.isFile() || (process.getuid && st.uid !== process.getuid()) || st.mode & 0o077) return undefined;
    const text = readFileSync(path, "utf8");
    const nl = text.indexOf("\n");
    const head = JSON.parse(text.slice(0, nl)) as { format?: unknown; version?: unknown; dir?: unknown; checksum?: unknown } | null;
    const body = text.slice(nl + 1);
    if (head?.format !== FORMAT || head.version !== VERSION || head.dir !== factsDir || head.checksum !== checksum(body)) return undefined;
    const data = JSON.parse(body) as { dirStamp?: unknown; files?: unknown; part?: unknown };
    if (typeof data.dirStamp !== "string" || !Array.isArray(data.files)) return undefined;
    const files = new Map<string, IndexedFile>();
    let facts = 0;
    for (const e of data.files as unknown[]) {
      const row = fileRow(e);
      if (!row || files.has(row[0])) return undefined;
      files.set(row[0], row[1]);
      if (row[1].fact) facts++;
    }
    if (!isBm25Part(data.part, facts)) return undefined;
    return { dirStamp: data.dirStamp, files, part: data.part };
  } catch {
    return undefined; // none yet, unreadable, or not JSON
  }
}

/** Fill a begun atomic write (mode 0600) with the folder's index. */
export function saveDirIndex(write: AtomicWrite, factsDir: string, index: DirIndex): void {
  const rows = [...index.files].map(([name, { stamp, fact: f }]) => (f ? [name, stamp, f.revision, f.created, f.updated, f.type, f.scope, f.text] : [name, stamp]));
  const body = JSON.stringify({ dirStamp: index.dirStamp, files: rows, part: index.part });
  write.commit(`${JSON.stringify({ format: FORMAT, version: VERSION, dir: factsDir, checksum: checksum(body) })}\n${body}`);
}
