/**
 * Background shell jobs of one session (`bash` with run_in_background,
 * `bash_output`, `bash_kill`, `/jobs`).
 *
 * A job is the same sandboxed command line foreground bash runs (wrapCommand
 * with the same options), spawned in a process group of its own so a kill
 * reaches everything it started: SIGTERM to the group, SIGKILL after a grace.
 * Under bwrap the PID namespace ends with it. Its output (stdout and stderr
 * interleaved) goes to a log file in the session's state directory, outside
 * the sandbox's view, kept up to a cap; what comes after the cap is counted,
 * not kept. Readers take what arrived since their last read.
 *
 * The session owns the table: jobs outlive turns and end when it closes
 * (closeAll), their logs removed with them.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { defaultShell, wrapCommand, type SandboxOptions } from "../sandbox/index.ts";
import type { JobInfo, JobStatus } from "../protocol/contract.ts";
export type { JobInfo, JobStatus } from "../protocol/contract.ts";

/** Output kept on disk per job; the rest is counted. */
export const JOB_OUTPUT_CAP = 8 << 20;
/** Jobs a session may have running at once. */
export const MAX_RUNNING_JOBS = 16;
/** How long a job gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 3000;


interface Job extends JobInfo {
  log: string;
  fd: number;
  /** Bytes of the log already handed to a reader. */
  readOffset: number;
  exited: Promise<void>;
  pumped: Promise<void>;
  killRequested: boolean;
  /** Runs under bubblewrap: the leader is bwrap, which takes the sandbox down hard when it goes. */
  bwrap: boolean;
}

export interface JobTableOptions {
  /** Output cap per job in bytes (default JOB_OUTPUT_CAP). */
  capBytes?: number;
  graceMs?: number;
  maxRunning?: number;
}

/** Tables with jobs that may still run: a process that exits without closing its sessions kills them on the way out. */
const liveTables = new Set<JobTable>();
let exitHookInstalled = false;
function killOnExit(table: JobTable): void {
  liveTables.add(table);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Synchronous by necessity: SIGKILL to every running job's group (bwrap's --die-with-parent covers a sandboxed job anyway; an unconfined one has no such net).
  process.on("exit", () => {
    for (const t of liveTables) t.killNow();
  });
}

export type StartResult = { ok: true; job: JobInfo } | { ok: false; message: string };

/** "exited 0", "killed (SIGTERM)", "running". */
export function statusText(j: JobInfo): string {
  if (j.status === "running") return "running";
  if (j.status === "killed") return `killed${j.signal ? ` (${j.signal})` : ""}`;
  return j.exitCode === null ? `ended by ${j.signal ?? "a signal"}` : `exited ${j.exitCode}`;
}

/** "12s", "3m 04s", "1h 02m". */
export function runtimeText(j: JobInfo, now = Date.now()): string {
  const s = Math.max(0, Math.round(((j.endedAt ?? now) - j.startedAt) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** Bytes up to the last complete UTF-8 character (a reader takes the rest next time). */
function completeUtf8(buf: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const b = buf[buf.length - back]!;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? buf.length - back : buf.length;
  }
  return buf.length;
}

/** Every process below `root` with its depth (1: a child), from /proc (Linux; empty elsewhere). */
function descendantsOf(root: number): { pid: number; depth: number }[] {
  const children = new Map<number, number[]>();
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const d of entries) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      // "pid (comm) state ppid …": comm may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {}
  }
  const out: { pid: number; depth: number }[] = [];
  for (let queue = [{ pid: root, depth: 0 }]; queue.length > 0; ) {
    const at = queue.shift()!;
    const kids = (children.get(at.pid) ?? []).map((pid) => ({ pid, depth: at.depth + 1 }));
    out.push(...kids);
    queue.push(...kids);
  }
  return out;
}

export class JobTable {
  private readonly jobs = new Map<string, Job>();
  private next = 1;
  private closed = false;
  private dirReady = false;
  private readonly cap: number;
  private readonly grace: number;
  private readonly maxRunning: number;

  /** `dir`: where the logs go (created on the first job, emptied of a crashed run's leftovers). */
  constructor(private readonly dir: string, opts: JobTableOptions = {}) {
    this.cap = opts.capBytes ?? JOB_OUTPUT_CAP;
    this.grace = opts.graceMs ?? KILL_GRACE_MS;
    this.maxRunning = opts.maxRunning ?? MAX_RUNNING_JOBS;
  }

  list(): JobInfo[] {
    return [...this.jobs.values()].map((j) => this.info(j));
  }

  get(id: string): JobInfo | undefined {
    const j = this.jobs.get(id);
    return j && this.info(j);
  }

  /** Start `command` under the sandbox `opts` describe; the job id comes back at once. */
  async start(command: string, opts: SandboxOptions): Promise<StartResult> {
    if (this.closed) return { ok: false, message: "the session is closing; no new background jobs" };
    const running = this.list().filter((j) => j.status === "running").length;
    if (running >= this.maxRunning) return { ok: false, message: `${running} background jobs are running already (at most ${this.maxRunning}): stop one with bash_kill first` };
    const wrapped = await wrapCommand([...defaultShell(opts.platform), command], opts);
    if (!wrapped.ok) return { ok: false, message: wrapped.refusal.message };
    if (!this.dirReady) {
      rmSync(this.dir, { recursive: true, force: true });
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.dirReady = true;
    }
    killOnExit(this);
    const id = `job-${this.next++}`;
    const log = join(this.dir, `${id}.log`);
    const fd = openSync(log, "a", 0o600);
    let proc: ReturnType<typeof Bun.spawn>;
    try {
      proc = Bun.spawn(wrapped.argv, {
        cwd: wrapped.cwd,
        env: wrapped.env,
        stdio: ["ignore", "pipe", "pipe", ...wrapped.fds],
        // A process group of its own: a kill reaches what the command started.
        detached: true,
      });
    } catch (e) {
      closeSync(fd);
      wrapped.finish();
      return { ok: false, message: `the background job could not start: ${(e as Error)?.message ?? e}` };
    }
    const job: Job = {
      id, command, status: "running", exitCode: null, signal: null, startedAt: Date.now(), pid: proc.pid,
      kept: 0, dropped: 0, log, fd, readOffset: 0, killRequested: false, bwrap: wrapped.backend === "bwrap",
      exited: Promise.resolve(), pumped: Promise.resolve(),
    };
    wrapped.killWith(() => this.killHard(job));
    const readers = ([proc.stdout, proc.stderr] as ReadableStream<Uint8Array>[]).map((st) => st.getReader());
    const pump = async (reader: ReadableStreamDefaultReader<Uint8Array>) => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) this.keep(job, r.value);
    };
    job.pumped = Promise.all(readers.map(pump)).then(() => {}, () => {});
    job.exited = proc.exited.then(async (code) => {
      // Whatever is left of the group goes too: a bwrap child killed before it
      // left the group (its own session comes a moment after the start)
      // would otherwise hold the pipes and outlive the job.
      this.signal(job, "SIGKILL");
      // Output still in the pipes is kept; a process holding them open is not waited for.
      let drained = false;
      await Promise.race([job.pumped.then(() => (drained = true)), Bun.sleep(250)]);
      if (!drained) for (const r of readers) r.cancel().catch(() => {});
      const guard = wrapped.finish();
      const notes = [
        ...guard.violations.map((v) => `[sandbox: the command created protected ${v.path}; it was moved aside to ${v.movedTo}]`),
        ...(guard.notes ?? []).map((n) => `[sandbox: ${n}]`),
      ];
      if (notes.length > 0) this.keep(job, new TextEncoder().encode(`\n${notes.join("\n")}\n`), true);
      job.signal = proc.signalCode == null ? null : String(proc.signalCode);
      job.exitCode = job.signal ? null : code;
      job.status = job.killRequested ? "killed" : "exited";
      job.endedAt = Date.now();
    });
    this.jobs.set(id, job);
    return { ok: true, job: this.info(job) };
  }

  /**
   * Output since the last read (lines matching `filter` only, when given;
   * the others are consumed too), and the job's state. Undefined for an
   * unknown id.
   */
  read(id: string, filter?: RegExp): { job: JobInfo; text: string } | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    const size = statSync(job.log).size;
    let text = "";
    if (size > job.readOffset) {
      const buf = new Uint8Array(size - job.readOffset);
      const fd = openSync(job.log, "r");
      let got = 0;
      try {
        while (got < buf.length) {
          const n = readSync(fd, buf, got, buf.length - got, job.readOffset + got);
          if (n <= 0) break;
          got += n;
        }
      } finally {
        closeSync(fd);
      }
      const end = completeUtf8(buf.subarray(0, got));
      job.readOffset += end;
      text = new TextDecoder().decode(buf.subarray(0, end));
    }
    if (filter) text = text.split("\n").filter((l) => filter.test(l)).join("\n");
    return { job: this.info(job), text };
  }

  /** Stop a job: SIGTERM to its group, SIGKILL after the grace; resolves once it is gone. */
  async kill(id: string): Promise<JobInfo | undefined> {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    if (job.status === "running") {
      job.killRequested = true;
      // A bwrap still setting up may not yet hold its parent's death as its own: let the command start first.
      if (job.bwrap) await this.settled(job);
      const gentle = this.terminate(job);
      const ended = gentle && (await Promise.race([job.exited.then(() => true), Bun.sleep(this.grace).then(() => false)]));
      if (!ended) this.killHard(job);
      await job.exited;
    }
    return this.info(job);
  }

  /** SIGKILL to every running job, without waiting (the process is exiting). */
  killNow(): void {
    for (const j of this.jobs.values()) if (j.status === "running") this.killHard(j);
  }

  /** The session ends: every job is stopped and the logs removed. No new job starts afterwards. */
  async closeAll(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.jobs.keys()].map((id) => this.kill(id)));
    for (const j of this.jobs.values()) {
      await Promise.race([j.pumped, Bun.sleep(250)]);
      try {
        closeSync(j.fd);
      } catch {}
      // A late write must not land in whatever file reuses the descriptor number.
      j.fd = -1;
    }
    if (this.dirReady) rmSync(this.dir, { recursive: true, force: true });
    liveTables.delete(this);
  }

  /**
   * SIGTERM to what the command runs as. Under bwrap that is the processes
   * inside (bwrap itself would end them with SIGKILL when it goes); otherwise
   * the job's group. False when there was nothing to end gently: a bwrap
   * still setting up, before the command itself runs below its init.
   */
  private terminate(job: Job): boolean {
    if (!job.bwrap) return (this.signal(job, "SIGTERM"), true);
    const inside = descendantsOf(job.pid);
    for (const { pid } of inside) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {}
    }
    return inside.some((p) => p.depth >= 2);
  }

  /** Until the command runs below bwrap's init (or the job ended); bounded. */
  private async settled(job: Job): Promise<void> {
    for (let i = 0; i < 100 && job.endedAt === undefined; i++) {
      if (descendantsOf(job.pid).some((p) => p.depth >= 2)) return;
      await Bun.sleep(20);
    }
  }

  /** SIGKILL to the group and, under bwrap, to its namespace's init (the whole namespace ends with it). */
  private killHard(job: Job): void {
    if (job.bwrap) {
      for (const { pid, depth } of descendantsOf(job.pid)) {
        if (depth !== 1) continue;
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
    }
    this.signal(job, "SIGKILL");
  }

  private signal(job: Job, sig: NodeJS.Signals): void {
    // The group only (the job leads it): a bare pid could by now name an unrelated process.
    try {
      process.kill(-job.pid, sig);
    } catch {}
  }

  /** Append output to the job's log up to the cap; a note marks where the cap cut it off. */
  private keep(job: Job, chunk: Uint8Array, force = false): void {
    if (job.fd < 0) return;
    if (force) {
      writeSync(job.fd, chunk);
      return;
    }
    const room = this.cap - job.kept;
    if (room <= 0) {
      job.dropped += chunk.length;
      return;
    }
    const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
    writeSync(job.fd, piece);
    job.kept += piece.length;
    if (piece.length < chunk.length) {
      job.dropped += chunk.length - piece.length;
      writeSync(job.fd, new TextEncoder().encode(`\n[output beyond ${this.cap} bytes is not kept; the job runs on]\n`));
    }
  }

  private info(j: Job): JobInfo {
    const { id, command, status, exitCode, signal, startedAt, endedAt, pid, kept, dropped } = j;
    return { id, command, status, exitCode, signal, startedAt, ...(endedAt ? { endedAt } : {}), pid, kept, dropped };
  }
}
