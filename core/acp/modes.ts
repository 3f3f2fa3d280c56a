/** Session modes, models and config options as ACP advertises them. */
import type * as acp from "@agentclientprotocol/sdk";
import type { ModelInfo, PermissionMode } from "../engine/types.ts";
import { EFFORT_CHOICES, modesOffered, SELECTABLE_MODES } from "../protocol/modes.ts";
import { GOAL_COMMAND } from "../goal/command.ts";
import { builtinCommandEntry } from "../protocol/commands.ts";

/** "default" = the provider entry's own reasoning_effort. */
export const EFFORT_VALUES = EFFORT_CHOICES;

const SHOWN: Record<PermissionMode, { name: string; description: string }> = {
  ask: { name: "Ask", description: "Ask before writers, commands and anything no rule allows" },
  auto: { name: "Auto", description: "Run writers and commands that no rule holds back" },
  plan: { name: "Plan", description: "Read and plan only; nothing changes until you leave plan mode" },
  "read-only": { name: "Read-only", description: "Reading tools only" },
  yolo: { name: "YOLO", description: "Skip approvals except deny rules (set in config)" },
};

/** The modes offered (core/protocol modesOffered: yolo only when the user's config already chose it). */
export function modeState(current: PermissionMode): acp.SessionModeState {
  return { currentModeId: current, availableModes: modesOffered(current).map((id) => ({ id, ...SHOWN[id] })) };
}

export const modeSelectable = (current: PermissionMode, wanted: string): wanted is PermissionMode => (modesOffered(current) as readonly string[]).includes(wanted);

/** `effort`: the session's reasoning effort ("default" when unset); omitted when the engine cannot set one. */
export function configOptions(mode: PermissionMode, model: string, models: ModelInfo[], effort?: string): acp.SessionConfigOption[] {
  const ms = modeState(mode);
  const thought: acp.SessionConfigOption[] =
    effort === undefined
      ? []
      : [
          {
            id: "reasoning_effort",
            name: "Reasoning effort",
            category: "thought_level",
            type: "select",
            currentValue: effort,
            options: EFFORT_VALUES.map((v) => ({ value: v, name: v, description: v === "default" ? "what the provider entry sets" : null })),
          },
        ];
  return [
    {
      id: "mode",
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: mode,
      options: ms.availableModes.map((m) => ({ value: m.id, name: m.name, description: m.description ?? null })),
    },
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: model,
      options: models.map((m) => ({ value: m.name, name: m.name, description: `${m.kind} · ${m.model}${m.hasKey ? "" : " · no key"}` })),
    },
    ...thought,
  ];
}

export function modelState(model: string, models: ModelInfo[]) {
  return { currentModelId: model, availableModels: models.map((m) => ({ modelId: m.name, name: m.name, description: `${m.kind} · ${m.model}` })) };
}

/** Slash commands this agent answers itself (a client sends them back as prompt text). */
export const AVAILABLE_COMMANDS: acp.AvailableCommand[] = [
  { name: "mode", description: "Switch the permission mode", input: { hint: SELECTABLE_MODES.join(" | ") } },
  { name: "model", description: "Continue this conversation on another model", input: { hint: "provider entry name" } },
  { name: GOAL_COMMAND.name, description: GOAL_COMMAND.description, input: { hint: GOAL_COMMAND.argumentHint } },
  // The rest of what the shared dispatcher runs here (core/host/commands); /compact and /mcp come with the catalog.
  ...["effort", "rewind", "memory", "help"].map((name): acp.AvailableCommand => {
    const c = builtinCommandEntry(name);
    return { name, description: c.description, ...(c.args ? { input: { hint: c.args } } : {}) };
  }),
];
