/**
 * The per-workspace symbol index behind code_index. Incremental per file: a
 * file whose mtime and size are unchanged is not read again; one whose bytes
 * hash the same is not parsed again. Kept in memory for the process and saved
 * (atomically, 0600) to a cache file in the session's temp directory, so a
 * later process of the same session starts warm.
 *
 * Which files count is decided by the shared walker (.gitignore/.ignore,
 * hidden files, forbid_read and Reasonix state pruned), so a cached entry is
 * never shown for a file the current policy hides; its answer is reused while
 * no directory it listed and no ignore file it read has changed (walk-cache.ts).
 * Every call still stats each file, so an edit is seen by the next call.
 * Changed files are parsed on worker threads when there are many (pool.ts).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { PathPolicy } from "../policy/paths.ts";
import { readBounded } from "../tools/builtin/common.ts";
import type { CodeSymbol } from "./extract.ts";
import { langFor, type LangId } from "./grammars.ts";
import { BATCH, parseBatch, parseInProcess } from "./pool.ts";
import { WalkCache, type SourceList } from "./walk-cache.ts";

/** Files larger than this are listed with no symbols (generated or minified code). */
export const MAX_FILE_BYTES = 1024 * 1024;
/** At most this many source files per call (a guard against indexing a whole disk). */
export const MAX_FILES = 50_000;
const CACHE_VERSION = 1;

export interface FileEntry {
  mtimeMs: number;
  size: number;
  hash: string;
  lang: LangId;
  symbols: CodeSymbol[];
  /** Why the file has no symbols although it may have some (too large, binary, parse error). */
  note?: string;
}

/** A file whose content changed: its new stamp and text, to be parsed. */
interface ToParse {
  mtimeMs: number;
  size: number;
  hash: string;
  lang: LangId;
  text: string;
}

export interface IndexedFile {
  /** Path relative to the workspace, `/`-separated. */
  rel: string;
  abs: string;
  entry: FileEntry;
}

export interface RefreshStats {
  files: IndexedFile[];
  parsed: number;
  /** Read again because the stamp changed, but the content hash matched. */
  rehashed: number;
  reused: number;
  /** True when MAX_FILES stopped the walk. */
  capped: boolean;
}

export class CodeIndex {
  private readonly files = new Map<string, FileEntry>();
  private loaded = false;
  private dirty = false;
  private queue: Promise<unknown> = Promise.resolve();
  /** The walk's answers per directory, reused while nothing it read has changed. */
  readonly walks = new WalkCache();

  constructor(readonly workspace: string, readonly cacheFile: string | null) {}

  /** Bring the entries under SCOPE (a real path: a directory or one file) up to date; calls run one at a time. */
  refresh(scope: string, policy: PathPolicy, signal?: AbortSignal): Promise<RefreshStats> {
    const run = this.queue.then(() => this.refreshNow(scope, policy, signal));
    this.queue = run.catch(() => {});
    return run;
  }

  private async refreshNow(scope: string, policy: PathPolicy, signal?: AbortSignal): Promise<RefreshStats> {
    this.load();
    const stats: RefreshStats = { files: [], parsed: 0, rehashed: 0, reused: 0, capped: false };
    const prefix = relative(this.workspace, scope).split("\\").join("/");
    const sources = this.sources(scope, policy);
    stats.capped = sources.capped;
    const seen = new Set<string>();
    // Files whose content changed, parsed in batches: on worker threads once there is more than one batch.
    let batch: { file: IndexedFile; job: ToParse }[] = [];
    const inflight: Promise<void>[] = [];
    let failure: Error | null = null;
    const flush = (workers: boolean) => {
      const items = batch;
      batch = [];
      const jobs = items.map((i) => ({ text: i.job.text, lang: i.job.lang }));
      inflight.push(
        (workers ? parseBatch(jobs) : parseInProcess(jobs)).then((results) => {
          results.forEach((r, k) => {
            if ("error" in r) {
              failure ??= new Error(r.error);
              return;
            }
            const { file, job } = items[k]!;
            file.entry = { mtimeMs: job.mtimeMs, size: job.size, hash: job.hash, lang: job.lang, symbols: r };
            this.files.set(file.rel, file.entry);
            this.dirty = true;
            stats.parsed++;
          });
        }),
      );
    };
    let usedWorkers = false;
    let lastYield = performance.now();
    for (const src of sources.files) {
      if (signal?.aborted) throw signal.reason ?? new Error("aborted");
      const rel = src.rel === "" ? prefix : prefix === "" ? src.rel : `${prefix}/${src.rel}`;
      seen.add(rel);
      const got = this.check(rel, src.abs, stats);
      if (!got) continue;
      const file: IndexedFile = { rel, abs: src.abs, entry: got as FileEntry };
      stats.files.push(file);
      if ("text" in got) {
        batch.push({ file, job: got });
        if (batch.length >= BATCH) {
          flush((usedWorkers = true));
          if (inflight.length >= 8) await inflight.shift();
        }
      }
      // Reading and hashing are synchronous: give the event loop a turn now and then so
      // streams, other tools and Ctrl-C stay responsive during a cold index.
      if (performance.now() - lastYield > 25) {
        await new Promise((r) => setImmediate(r));
        lastYield = performance.now();
      }
    }
    if (batch.length > 0) flush(usedWorkers);
    await Promise.all(inflight);
    if (failure) throw failure;
    if (signal?.aborted) throw signal.reason ?? new Error("aborted");
    // Forget files that are gone from the scope (deleted, renamed, now ignored).
    if (!stats.capped) {
      for (const rel of this.files.keys()) {
        const inScope = prefix === "" || rel === prefix || rel.startsWith(`${prefix}/`);
        if (inScope && !seen.has(rel)) {
          this.files.delete(rel);
          this.dirty = true;
        }
      }
    }
    this.save();
    return stats;
  }

  /** Source files under scope that the walk admits, in path order (rel: relative to scope, "" for scope itself). */
  private sources(scope: string, policy: PathPolicy): SourceList {
    const st = statSync(scope, { throwIfNoEntry: false });
    if (!st) return { files: [], capped: false };
    if (st.isFile()) return { files: langFor(scope) ? [{ rel: "", abs: scope }] : [], capped: false };
    return this.walks.sources(scope, policy, MAX_FILES);
  }

  /** The file's entry when it is up to date (or needs no parse), what to parse when its content changed, null when unreadable. */
  private check(rel: string, abs: string, stats: RefreshStats): FileEntry | ToParse | null {
    const st = statSync(abs, { throwIfNoEntry: false });
    if (!st) return null;
    const old = this.files.get(rel);
    if (old && old.mtimeMs === st.mtimeMs && old.size === st.size) {
      stats.reused++;
      return old;
    }
    const lang = langFor(rel)!;
    let entry: FileEntry;
    if (st.size > MAX_FILE_BYTES) {
      entry = { mtimeMs: st.mtimeMs, size: st.size, hash: "", lang, symbols: [], note: "larger than 1 MiB, not parsed" };
    } else {
      let buf: Buffer | null;
      try {
        buf = readBounded(abs, MAX_FILE_BYTES);
      } catch {
        return null;
      }
      if (!buf) return null;
      const hash = Bun.hash(buf).toString(36);
      if (old && old.hash === hash && old.lang === lang) {
        entry = { ...old, mtimeMs: st.mtimeMs, size: st.size };
        stats.rehashed++;
      } else if (buf.subarray(0, 8192).includes(0)) {
        entry = { mtimeMs: st.mtimeMs, size: st.size, hash, lang, symbols: [], note: "binary, not parsed" };
      } else {
        return { mtimeMs: st.mtimeMs, size: st.size, hash, lang, text: buf.toString("utf8") };
      }
    }
    this.files.set(rel, entry);
    this.dirty = true;
    return entry;
  }

  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    if (!this.cacheFile) return;
    try {
      const data = JSON.parse(readFileSync(this.cacheFile, "utf8")) as { version: number; workspace: string; files: Record<string, FileEntry> };
      if (data.version !== CACHE_VERSION || data.workspace !== this.workspace) return;
      for (const [rel, e] of Object.entries(data.files)) this.files.set(rel, e);
    } catch {
      // No cache yet, or an unreadable one: start cold.
    }
  }

  private save(): void {
    if (!this.cacheFile || !this.dirty) return;
    try {
      mkdirSync(dirname(this.cacheFile), { recursive: true, mode: 0o700 });
      const tmp = `${this.cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ version: CACHE_VERSION, workspace: this.workspace, files: Object.fromEntries(this.files) }), { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.cacheFile);
      this.dirty = false;
    } catch {
      // The cache is an optimisation: a full disk or a read-only temp dir only costs the next process a cold start.
    }
  }
}

const indexes = new Map<string, CodeIndex>();

/** The index for a workspace and cache file, shared by every call in this process (a few kept, least recent dropped). */
export function indexFor(workspace: string, tmpDir: string | null): CodeIndex {
  const cacheFile = tmpDir ? join(tmpDir, "code-index", "cache.json") : null;
  const key = `${workspace}\0${cacheFile ?? ""}`;
  let idx = indexes.get(key);
  if (idx) indexes.delete(key);
  else idx = new CodeIndex(workspace, cacheFile);
  indexes.set(key, idx);
  while (indexes.size > 8) indexes.delete(indexes.keys().next().value!);
  return idx;
}
