// /help, /new, /clear, /model, /mode, /effort: what the session is and runs on.
import { errorMessage } from "../../errors.ts";
import { EFFORTS, PERMISSION_MODES, SELECTABLE_MODES, type PermissionMode } from "../../protocol/modes.ts";
import { commandsOn, failed, registerCommand, result } from "./registry.ts";
import type { CommandContext, CommandResult } from "./types.ts";

const isBusy = (ctx: CommandContext): boolean => (ctx.busy ? ctx.busy() : ctx.host.session.busy);

/** Nothing done while a turn runs: the user cancels or waits first. */
export function busyResult(name: string, ctx: CommandContext): CommandResult | undefined {
  if (!isBusy(ctx)) return undefined;
  const how = ctx.surface === "chat" ? "wait for it or press Esc to cancel it first" : "wait for it or cancel it first";
  return result(name, [`a turn is running: ${how}`], { ok: false, tone: "warn" });
}

registerCommand({
  name: "help",
  execute: (ctx) => {
    const list = commandsOn(ctx.surface);
    return result("help", ["Commands", ...list.map((c) => `  /${c.name}${c.args ? ` ${c.args}` : ""}  ${c.description}`)], { data: { commands: list } });
  },
});

for (const name of ["new", "clear"]) {
  registerCommand({
    name,
    execute: async (ctx) => {
      const busy = busyResult(name, ctx);
      if (busy) return busy;
      if (!ctx.newSession) return failed(name, `/${name}: this front end cannot open a new session`);
      const id = await ctx.newSession();
      return result(name, [], { changed: "new", data: { sessionId: id } });
    },
  });
}

registerCommand({
  name: "model",
  execute: async (ctx, arg) => {
    const busy = busyResult("model", ctx);
    if (busy) return busy;
    const models = ctx.host.engine.models();
    if (!arg) {
      const items = models.map((m) => ({ label: m.name, value: m.name, description: `${m.kind} · ${m.model}${m.hasKey ? "" : " · no key"}` }));
      return result("model", [`model ${ctx.host.model}`], { choose: { title: "Model", items } });
    }
    try {
      await ctx.host.switchModel(arg);
    } catch (e) {
      return failed("model", `model ${arg}: ${errorMessage(e)}`);
    }
    return result("model", [`model ${ctx.host.model} from here on (same conversation)`], { changed: "model", data: { model: ctx.host.model } });
  },
});

/** The chat offers every mode; elsewhere yolo stays a config/CLI choice (kept when the session already runs in it). */
function modesOn(ctx: CommandContext): readonly PermissionMode[] {
  if (ctx.surface === "chat") return PERMISSION_MODES;
  return ctx.host.mode === "yolo" ? [...SELECTABLE_MODES, "yolo"] : SELECTABLE_MODES;
}

registerCommand({
  name: "mode",
  execute: (ctx, arg) => {
    const modes = modesOn(ctx);
    if (!arg) return result("mode", [`mode ${ctx.host.mode ?? "as configured"}`], { choose: { title: "Permission mode", items: modes.map((m) => ({ label: m, value: m, ...(m === ctx.host.mode ? { description: "current" } : {}) })) } });
    if (!(modes as readonly string[]).includes(arg)) return failed("mode", `unknown mode "${arg}" (one of ${modes.join(", ")})`);
    ctx.host.setMode(arg as PermissionMode);
    return result("mode", [`permission mode ${arg}`], { changed: "mode", data: { mode: arg } });
  },
});

registerCommand({
  name: "effort",
  execute: (ctx, arg) => {
    const current = ctx.host.effort ?? "default";
    if (!arg) {
      const items = [...EFFORTS, "default"].map((e) => ({ label: e, value: e, ...(e === current ? { description: "current" } : e === "default" ? { description: "the provider entry's reasoning_effort" } : {}) }));
      return result("effort", [`reasoning effort ${current}`], { choose: { title: "Reasoning effort", items } });
    }
    try {
      ctx.host.setEffort(arg === "default" ? undefined : arg);
    } catch (e) {
      return failed("effort", errorMessage(e));
    }
    return result("effort", [`reasoning effort ${arg} from the next request on`], { changed: "effort", data: { effort: ctx.host.effort ?? "default" } });
  },
});
