/** What the bootstrap reports and returns (shared by bootstrap.ts, install.ts and the supervisor). */
import type { ServeInstall } from "../hosts/types.ts";
import type { HostPort } from "../tunnel/http.ts";
import type { Codec } from "./artifact-types.ts";
import type { LevelRun } from "./upload-controller.ts";

export interface ServeInfo {
  pid: number;
  addr: HostPort;
  token: string;
  version: string;
  /** Absolute workspace path on the remote. */
  workspace: string;
  slug: string;
  startedAt: string;
  reused: boolean;
}

export type BootstrapEvent =
  | { event: "installing"; phase: "download" | "extract" | "compress" | "upload" | "remote_download" | "npm"; done: number; total: number }
  /** A faster source did not work out (e.g. the remote has no internet); the next one follows. */
  | { event: "install_fallback"; from: InstallSource["source"]; reason: string }
  /**
   * `bytes` sent by this upload; `resumed_from`: raw bytes the remote kept from one a lost link cut short.
   * A segmented upload adds the `levels` it used (runs in order, level 0 = raw) and the link speed it measured.
   */
  | { event: "installed"; bytes: number; binary_size: number; codec: Codec; ms: number; resumed_from?: number; levels?: LevelRun[]; link_bytes_per_s?: number }
  /**
   * Where the upload comes from: a compressed copy made earlier (`cached`), the binary
   * in segments compressed while it streams (`stream`: `level` is the first segments',
   * `adaptive` when the upload picks each segment's level from what it measures), or the
   * binary as is (`raw`: the remote has neither zstd nor gzip).
   */
  | { event: "install_source" } & InstallSource
  | { event: "stopping_old"; pid: number; version: string }
  | { event: "starting" }
  /** Another client holds the lock (installing or starting); its own progress line, when it has one. */
  | { event: "waiting_for_lock"; holder: string; phase?: string; done?: number; total?: number };

export interface InstallSource {
  source: "remote_download" | "cached" | "stream" | "raw";
  url?: string;
  codec: Codec;
  level?: number;
  adaptive?: boolean;
  bytes?: number;
}

export interface BootstrapOptions {
  /** Raw workspace as configured (`~/x` expands on the remote). Default `~`. */
  workspace?: string;
  version?: string;
  install?: ServeInstall;
  onEvent?: (e: BootstrapEvent) => void;
  /** Upload this executable instead of looking one up (tests, benchmarks). */
  binaryPath?: string;
  releaseDir?: string;
  /** Local cache of compressed binaries (default $REASONIX_HOME/cache/remote). */
  cacheDir?: string;
  /** zstd level for the upload (default 19). */
  compressionLevel?: number;
  /**
   * Replace the serve even when a healthy one runs (`remote serve restart`). The token
   * persists across restarts (open browser tabs keep working) unless `newToken`.
   */
  restart?: boolean;
  newToken?: boolean;
  /**
   * The lock id to hold the remote lock under (default: a fresh one per call). The
   * supervisor keeps one for its lifetime, so after a lost link it takes its own lock
   * back at once instead of waiting for its old, lingering session to time out.
   */
  lockId?: string;
}

export interface RemoteState {
  os: string;
  arch: string;
  platform: string | null;
  home: string;
  workspace: string;
  slug: string;
  haveBin: boolean;
  tools: Set<string>;
  locked: boolean;
  json?: { pid?: number; addr?: string; workspace?: string; version?: string; started_at?: string };
  pid?: number;
  alive: boolean;
  /** The remote checked the pid: our uid, started with our own pid file for this slug. */
  ours: boolean;
  args: string;
  token?: string;
  /** The workspace directory does not exist (deleted under a recorded serve); only with `allowMissing`. */
  workspaceMissing: boolean;
}
