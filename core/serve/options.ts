import type { AuthConfig } from "./auth.ts";
import type { EventHub } from "./events.ts";
import type { EngineFactory, SessionManager } from "./sessions.ts";

export interface ServerOptions {
  host: string;
  /** 0 = any free port. */
  port: number;
  /** Try port+1, port+2, … this many times when the port is busy (reasonix web). */
  portRetries?: number;
  auth: AuthConfig;
  behindProxy?: boolean;
  /** Extra Host names accepted besides the bound address. */
  publicHosts?: string[];
  workspace: string;
  version: string;
  model?: string;
  /** `default_model` from config: what new sessions use when no model was picked. */
  defaultModel?: string;
  /** Session to load at startup. */
  resume?: string;
  engineFactory?: EngineFactory;
  /**
   * Private random key mixed into password-mode cookie signatures, so that
   * reading `password_hash` (often in a world-readable config) is not enough
   * to forge a session. Absent = a fresh one per process.
   */
  cookieSecret?: string;
  /** Writes the provider key for the setup page; absent = setup disabled. */
  saveProviderKey?: (envName: string, value: string) => void;
  /** $REASONIX_HOME, where trust approvals are recorded (default: reasonixHome()). */
  home?: string;
}

export interface RunningServer {
  host: string;
  port: number;
  /** `host:port` (IPv6 bracketed). */
  addr: string;
  /** Base URL, no credential. */
  url: string;
  hub: EventHub;
  sessions: SessionManager;
  /** Graceful stop: running turns are cancelled and their writes complete first. */
  stop(): Promise<void>;
}
