// /help, /new, /clear, /model, /mode, /effort: what the session is and runs on.
import { errorMessage, ReasonixError } from "../../errors.ts";
import { EFFORTS, type PermissionMode } from "../../protocol/modes.ts";
import { builtinsOn, modesOn } from "../../protocol/commands.ts";
import { failed, registerCommand, result } from "./registry.ts";
import type { Choice, CommandContext, CommandResult } from "./types.ts";

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
    // /mode's hint names the modes this session is offered (builtinsOn). The session is read only where
    // it decides them: the chat offers every mode whatever the session's, and `reasonix run /help` has
    // no session (it needs none, cli/run-command.ts): the hint as for a session in its configured mode.
    const list = builtinsOn(ctx.surface, ctx.surface === "chat" || ctx.surface === "run" ? undefined : ctx.host.mode);
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

/** How long /model waits for the endpoint's model list before offering the configured ones alone. */
export const MODEL_LIST_TIMEOUT_MS = 4000;

/** The provider entry a model name belongs to: "entry" or "entry/model". */
const entryOf = (name: string): string => name.split("/")[0]!;

/** The configured models, then (chat) the ones the current entry's endpoint serves besides, asked with a short timeout. */
async function modelChoices(ctx: CommandContext): Promise<{ items: Choice[]; note?: string }> {
  const models = ctx.host.engine.models();
  const items: Choice[] = models.map((m) => ({ label: m.name, value: m.name, description: `${m.kind} · ${m.model}${m.hasKey ? "" : " · no key"}` }));
  const entry = entryOf(ctx.host.model);
  // The chat's picker only: the web UI's own model menu stays the configured list (its API answers as before).
  if (ctx.surface !== "chat" || !models.some((m) => entryOf(m.name) === entry)) return { items };
  let served: string[];
  try {
    served = await ctx.host.engine.discoverModels(entry, AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS));
  } catch (e) {
    return { items, note: `${entry}'s endpoint did not list its models (${errorMessage(e)}): showing the configured ones` };
  }
  const listed = new Set(models.filter((m) => entryOf(m.name) === entry).map((m) => m.model));
  for (const id of new Set(served)) if (!listed.has(id)) items.push({ label: `${entry}/${id}`, value: `${entry}/${id}`, description: `served by ${entry}'s endpoint` });
  return { items };
}

/** A name /model can switch to: a configured model, a configured model id, or entry/any-model-its-endpoint-serves. */
function knownModel(ctx: CommandContext, arg: string): boolean {
  const models = ctx.host.engine.models();
  if (models.some((m) => m.name === arg || m.model === arg || entryOf(m.name) === arg)) return true;
  const slash = arg.indexOf("/");
  return slash > 0 && slash < arg.length - 1 && models.some((m) => entryOf(m.name) === arg.slice(0, slash));
}

registerCommand({
  name: "model",
  execute: async (ctx, arg) => {
    const busy = busyResult("model", ctx);
    if (busy) return busy;
    if (!arg) {
      const { items, note } = await modelChoices(ctx);
      return result("model", [`model ${ctx.host.model}`, ...(note ? [note] : [])], { choose: { title: "Model", items, what: "models", ...(note ? { note } : {}) } });
    }
    // Checked here, so an unknown name leaves the session (and its figures) as it is.
    if (!knownModel(ctx, arg)) {
      const names = [...new Set(ctx.host.engine.models().map((m) => m.name))].join(", ");
      return failed("model", `no model "${arg}": /model without a name lists the ones to pick (configured: ${names})`);
    }
    try {
      await ctx.host.switchModel(arg);
    } catch (e) {
      return { ...failed("model", `could not switch to ${arg}: ${errorMessage(e)} (still on ${ctx.host.model})`), data: { code: e instanceof ReasonixError ? e.code : "model_switch_failed" } };
    }
    return result("model", [`model ${ctx.host.model} from here on (same conversation)`], { changed: "model", data: { model: ctx.host.model } });
  },
});

registerCommand({
  name: "mode",
  execute: (ctx, arg) => {
    // The chat offers every mode; elsewhere yolo stays a config/CLI choice (kept when the session already runs in it).
    const modes = modesOn(ctx.surface, ctx.host.mode);
    if (!arg) return result("mode", [`mode ${ctx.host.mode ?? "as configured"}`], { choose: { title: "Permission mode", items: modes.map((m) => ({ label: m, value: m, ...(m === ctx.host.mode ? { description: "current" } : {}) })) } });
    if (!(modes as readonly string[]).includes(arg)) return failed("mode", `unknown mode "${arg}" (one of ${modes.join(", ")})`);
    ctx.host.setMode(arg as PermissionMode);
    return result("mode", [`permission mode ${arg} from here on`], { changed: "mode", data: { mode: arg } });
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
