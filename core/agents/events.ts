/**
 * Live progress of a subagent, as the parent session's `subagent` event
 * (core/engine/types.ts): started, each tool call it makes, ended. Worded
 * once here for every front end (run's text output, the terminal chat, the
 * web UI, ACP). Not recorded in the parent's log: the child's own session
 * holds its work, and the task's receipt names it.
 */
import type { SubagentProgress } from "../protocol/turn.ts";

export type { SubagentProgress };

/** The input field that says most about a call (a command, a path, a pattern…), shortened. */
export function inputDetail(input: unknown): string {
  if (!input || typeof input !== "object") return "";
  const o = input as Record<string, unknown>;
  const pick = ["command", "path", "file_path", "pattern", "url", "query", "description", "name"].map((k) => o[k]).find((v) => typeof v === "string" && v.trim());
  const s = String(pick ?? "").replace(/\s+/g, " ").trim();
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
}

export function subagentLine(p: SubagentProgress): string {
  const who = `subagent ${p.name}`;
  if (p.phase === "start") return `↳ ${who} started${p.readOnly ? " (read-only)" : ""}`;
  if (p.phase === "tool") return `  ${p.name} › ${p.tool ?? "tool"}${p.detail ? `: ${p.detail}` : ""}`;
  return p.reason === "done" ? `↳ ${who} finished` : `↳ ${who} ended (${p.reason ?? "error"})`;
}

/** A child that did not finish deserves the user's eye. */
export const subagentTone = (p: SubagentProgress): "info" | "warn" => (p.phase === "end" && p.reason !== "done" ? "warn" : "info");
