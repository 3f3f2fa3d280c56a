/**
 * run_skill: how the model loads a skill listed in the conversation's
 * `<skills>` index. The skill's body comes back as the tool result, so it
 * joins the conversation where it is needed and the cached prefix (system
 * prompt, tool schemas, earlier messages) stays byte-identical. The tool's
 * own description never names skills for the same reason.
 */
import type { ToolDefinition } from "../tools/types.ts";
import type { CommandRegistry } from "./registry.ts";

interface Input { name: string; arguments?: string }

export function runSkillTool(registry: CommandRegistry, workspace: string): ToolDefinition<Input> {
  return {
    name: "run_skill",
    description: "Load the instructions of a skill listed in the <skills> block of the conversation, then follow them. Pass the skill's name and, optionally, arguments for it.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "the skill's name as listed" },
        arguments: { type: "string", description: "what the skill should work on (optional)" },
      },
      required: ["name"],
      additionalProperties: false,
    },
    kind: "meta",
    summarize: (i) => `skill ${String(i?.name ?? "?")}`,
    async run(input, ctx) {
      const name = typeof input?.name === "string" ? input.name.trim().replace(/^\//, "") : "";
      registry.invalidate();
      const entry = registry.resolve(name);
      const skills = () => registry.catalog().entries.filter((e) => e.kind === "skill" && e.skill?.invocation !== "manual").map((e) => e.name).join(", ") || "none";
      if (!entry || entry.kind !== "skill" || !entry.expand) {
        const blocked = registry.blocked(name);
        return { ok: false, output: blocked ? `skill ${name} ${blocked.notLoaded}` : `no skill named "${name}"; available: ${skills()}` };
      }
      if (entry.skill?.invocation === "manual") return { ok: false, output: `skill ${name} is manual: only the user runs it (by typing /${name})` };
      const text = await entry.expand(typeof input.arguments === "string" ? input.arguments : "", { workspace, signal: ctx.signal });
      return { ok: true, output: text };
    },
  };
}
