// /rewind, /compact, /mcp, /goal: what the conversation holds and where it goes.
import { errorMessage } from "../../errors.ts";
import { runGoalCommand } from "../../goal/command.ts";
import { runSessionCommand } from "../../commands/session-commands.ts";
import { REWIND_MODES, type RewindMode } from "../../protocol/modes.ts";
import { failed, registerCommand, result } from "./registry.ts";
import { busyResult } from "./session.ts";

const RESTORES: Record<RewindMode, string> = { both: "files and conversation", code: "files only", conversation: "conversation only" };

/** `/rewind [turn] [code|conversation|both]`: without both, the choice that is missing. */
registerCommand({
  name: "rewind",
  execute: async (ctx, arg) => {
    const busy = busyResult("rewind", ctx);
    if (busy) return busy;
    const s = ctx.host.session;
    const turns = s.turns();
    if (turns.length === 0) return result("rewind", ["nothing to rewind to"], { ok: false, tone: "warn" });
    const [turnArg, modeArg] = arg.split(/\s+/).filter(Boolean);
    if (!turnArg) {
      const items = [...turns].reverse().map((t) => ({ label: t.prompt.replace(/\s+/g, " ").slice(0, 80), value: String(t.turn), description: `turn ${t.turn}` }));
      return result("rewind", [], { choose: { title: "Rewind to before which prompt?", items } });
    }
    const turn = Number(turnArg);
    if (!Number.isInteger(turn) || !turns.some((t) => t.turn === turn)) return failed("rewind", `rewind: no turn ${turnArg} (turns: ${turns.map((t) => t.turn).join(", ")})`);
    if (!modeArg) return result("rewind", [], { choose: { title: "Restore", items: (["both", "code", "conversation"] as const).map((m) => ({ label: m, value: `${turn} ${m}`, description: RESTORES[m] })) } });
    if (!(REWIND_MODES as readonly string[]).includes(modeArg)) return failed("rewind", `rewind: restore one of ${REWIND_MODES.join(", ")}, not "${modeArg}"`);
    try {
      const r = await s.rewind(turn, modeArg as RewindMode);
      return result("rewind", [`rewound to before turn ${r.turn} (${r.mode})`, ...r.files.map((f) => `  ${f.action} ${f.path}`)], { changed: "rewound", data: { rewind: r } });
    } catch (e) {
      return failed("rewind", `rewind: ${errorMessage(e)}`);
    }
  },
});

registerCommand({
  name: "compact",
  execute: async (ctx) => {
    const busy = busyResult("compact", ctx);
    if (busy) return busy;
    const r = await runSessionCommand("compact", { session: ctx.host.session, engine: ctx.host.engine });
    return result("compact", [r.text], { ok: r.ok, tone: r.ok ? "info" : "error", ...(r.compacted ? { changed: "compacted" as const } : {}) });
  },
});

registerCommand({
  name: "mcp",
  execute: async (ctx) => {
    const r = await runSessionCommand("mcp", { session: ctx.host.session, engine: ctx.host.engine });
    return result("mcp", r.text.split("\n"), { ok: r.ok, tone: r.ok ? "info" : "error" });
  },
});

/** `/goal …` (core/goal/command.ts): the loop, when one starts, runs on in the background; its goal events tell the story. */
registerCommand({
  name: "goal",
  execute: (ctx, arg) => {
    try {
      const r = runGoalCommand(ctx.host.session.goal, arg);
      return result("goal", r.lines, r.loop ? { loop: r.loop } : {});
    } catch (e) {
      return failed("goal", `goal: ${errorMessage(e)}`);
    }
  },
});
