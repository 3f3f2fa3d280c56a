/**
 * The permission modes, the reasoning efforts and the answers a user can give
 * (approvals, rewinds): one list each, for the engine, every front end and the
 * browser UI. Browser-safe: nothing here imports outside core/protocol.
 */

/** Every permission mode, from config, flags or a front end. */
export const PERMISSION_MODES = ["ask", "auto", "yolo", "plan", "read-only"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** Modes a session may be switched to from a front end (yolo stays a config/CLI choice). */
export const SELECTABLE_MODES = ["ask", "auto", "plan", "read-only"] as const satisfies readonly PermissionMode[];

/**
 * The modes a front end other than the chat offers a session now: the
 * selectable ones, and yolo only when the session already runs in it (set in
 * config or on the command line). The chat offers every mode.
 */
export const modesOffered = (current: PermissionMode | undefined): readonly PermissionMode[] => (current === "yolo" ? [...SELECTABLE_MODES, "yolo"] : SELECTABLE_MODES);

/** The modes from most to least restrictive (a cloned repository's config may only tighten the mode). */
export const MODES_BY_STRICTNESS = ["read-only", "plan", "ask", "auto", "yolo"] as const satisfies readonly PermissionMode[];
// Every mode is ranked: a mode added to PERMISSION_MODES and not here fails to type-check.
type AllRanked = PermissionMode extends (typeof MODES_BY_STRICTNESS)[number] ? true : never;
export const ALL_MODES_RANKED: AllRanked = true;

/** 0 = most restrictive; undefined for a value that is no mode. */
export const modeRank = (m: unknown): number | undefined => {
  const i = (MODES_BY_STRICTNESS as readonly unknown[]).indexOf(m);
  return i < 0 ? undefined : i;
};

export const isPermissionMode = (m: unknown): m is PermissionMode => typeof m === "string" && (PERMISSION_MODES as readonly string[]).includes(m);

/** Reasoning efforts, weakest first; each provider maps them onto its own scale (core/providers/reasoning.ts). */
export const EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type Effort = (typeof EFFORTS)[number];

/** What a front end offers: "default" = the provider entry's own reasoning_effort. */
export const EFFORT_CHOICES = ["default", ...EFFORTS] as const;

/**
 * How a user answered an approval request. "persist" saves the rule in the
 * user's config file; "persist_project" in the workspace's reasonix.toml.
 */
export const APPROVAL_DECISIONS = ["once", "session", "persist", "persist_project", "deny"] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** What the permission policy says about one tool call. */
export type PermissionAction = "allow" | "ask" | "deny";

export interface PermissionDecision {
  action: PermissionAction;
  /** One user-facing sentence: why. */
  reason: string;
  /** The rule an "allow for this session / always" answer would store. */
  suggestedRule: string;
  /** A "deny" only because a headless run cannot ask (a PreToolUse hook's approval may stand in for the human). */
  headlessAsk?: boolean;
}

/** What a rewind restores: the files ("code"), the conversation, or both. */
export const REWIND_MODES = ["code", "conversation", "both"] as const;
export type RewindMode = (typeof REWIND_MODES)[number];

/** What steering guidance became: part of the running turn, or the next turn's. */
export type SteerDisposition = "steer_accepted" | "queued_followup";
