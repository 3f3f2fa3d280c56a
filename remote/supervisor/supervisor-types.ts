/** What the supervisor reports and how it is set up (supervisor.ts runs it). */
import type { BootstrapEvent, BootstrapOptions } from "../bootstrap/bootstrap.ts";
import type { Forward } from "../forwards/spec.ts";
import type { SshConnection } from "../ssh/connect.ts";
import type { BackoffPolicy } from "./backoff.ts";
import type { ProviderLink } from "./provider-link.ts";
import type { ServeCache } from "./serve-cache.ts";

export type SupervisorEvent =
  | { event: "connecting"; host: string; attempt: number }
  | { event: "connected"; host: string; ms: number }
  | BootstrapEvent
  | {
      event: "ready";
      url: string;
      local_port: number;
      pid: number;
      remote_addr: string;
      workspace: string;
      version: string;
      reused: boolean;
      /** How the serve was found: checked from what we knew, from the remote's records, or freshly started. */
      via: "known" | "remote" | "started";
      reconnect: boolean;
      ms: number;
      /** On a reconnect: how long the link was down, counted from the last bytes the lost link delivered. */
      outage_ms?: number;
    }
  | { event: "forward"; spec: string; status: "bound" | "attached" | "failed"; message?: string }
  /** The serve stopped answering while connected (dead, hung); a restart follows unless it keeps dying. */
  | { event: "serve_lost"; pid: number; reason: string }
  /** Same token and local port as before: the URL handed out still works. */
  | { event: "serve_restarted"; pid: number; previous_pid: number; url: string; ms: number }
  /** silent_ms: how long before this the lost link last delivered bytes (the outage began then). */
  | { event: "disconnected"; reason: string; silent_ms: number }
  | { event: "reconnecting"; attempt: number; delay_ms: number; reason: string }
  | { event: "error"; code: string; message: string; hint?: string; terminal: boolean };

export interface SupervisorOptions {
  host: string;
  /** Open one SSH connection (jumps included); throws SshError. */
  dial: () => Promise<SshConnection>;
  bootstrap: BootstrapOptions;
  localPort?: number;
  forwards?: Forward[];
  onEvent: (e: SupervisorEvent) => void;
  backoff?: Partial<BackoffPolicy>;
  /** Cheap reachability check used to cut a backoff wait short once the network is back. */
  probe?: () => Promise<boolean>;
  cache?: ServeCache | null;
  /** Give up when the very first connection cannot be made this many times (default 3). */
  initialAttempts?: number;
  /** How often to ask the serve for /healthz while connected (default 10 s). */
  healthIntervalMs?: number;
  /** The serve died (after serve_lost): why, and the last lines of its log, for a crash report. */
  onServeDied?: (d: { pid: number; reason: string; log: string }) => void;
  /** credentials = "local-proxy": the provider proxy the remote serve reaches through an -R forward. */
  providerLink?: ProviderLink | null;
}
