// The types SessionManager's callers share: how the engine is built, what a
// command answers, what the session list shows.
import type { Engine, SessionSummary } from "../engine/types.ts";
import type { CommandResult } from "../host/commands/index.ts";

export interface EngineFactoryOptions {
  workspace: string;
  model?: string;
}

/** Builds the engine; called at startup and again after the provider key is saved. */
export type EngineFactory = (opts: EngineFactoryOptions) => Promise<Engine> | Engine;

/** What POST /api/sessions/:id/command answers (the dispatcher's result without its goal loop). */
export interface CommandReply extends Pick<CommandResult, "ok" | "unavailable" | "changed" | "choose" | "data"> {
  text: string;
  /** /compact compacted: the session's compaction event has told the user already. */
  compacted?: boolean;
}

export interface SessionState extends Partial<SessionSummary> {
  id: string;
  live: boolean;
  busy: boolean;
}
