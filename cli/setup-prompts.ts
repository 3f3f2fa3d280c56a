// The terminal side of `reasonix setup`: numbered menus and hidden key input
// on stderr, driving the wizard in core/setup. The chat calls
// ensureProviderOnFirstUse() before it starts, so a newcomer lands here too.
import { CancelledError, ReasonixError, UsageError } from "../core/errors.ts";
import type { SetupIO, WizardResult } from "../core/setup/wizard.ts";
import { readHidden, readLine } from "./hidden-input.ts";
import { bold, dim } from "./output.ts";

const say = (text: string) => process.stderr.write(`${text}\n`);
const CANCELLED = "setup cancelled; nothing was written";

/** A visible line; Ctrl-C (readline's abort) or Ctrl-D ends the wizard without writing anything. */
async function line(prompt: string): Promise<string> {
  try {
    return await readLine(prompt);
  } catch (e) {
    if (e instanceof ReasonixError) throw e;
    throw new CancelledError(CANCELLED);
  }
}

/** Prompts on the controlling terminal; a number or the option's text picks it. */
export function terminalSetupIO(): SetupIO {
  return {
    say,
    async choose(question, options, defaultIndex = 0) {
      say(bold(question, process.stderr));
      options.forEach((o, i) => say(`  ${String(i + 1).padStart(2)}) ${o}${i === defaultIndex ? dim(" (default)", process.stderr) : ""}`));
      for (let tries = 0; tries < 5; tries++) {
        const a = (await line(`choose 1-${options.length} [${defaultIndex + 1}]: `)).trim();
        if (a === "") return defaultIndex;
        const n = Number(a);
        if (Number.isInteger(n) && n >= 1 && n <= options.length) return n - 1;
        const byText = options.findIndex((o) => o.toLowerCase() === a.toLowerCase());
        if (byText >= 0) return byText;
        say(`"${a}" is not one of the choices`);
      }
      throw new UsageError("setup cancelled: no choice made");
    },
    async ask(question, defaultValue) {
      return line(`${question}${defaultValue ? dim(` [${defaultValue}]`, process.stderr) : ""}: `);
    },
    askSecret: (question) => readHidden(question).catch((e) => Promise.reject(e instanceof UsageError && e.message === "cancelled" ? new CancelledError(CANCELLED) : e)),
  };
}

export async function runInteractiveSetup(opts: { home?: string; timeoutMs?: number } = {}): Promise<WizardResult> {
  if (!process.stdin.isTTY) {
    throw new UsageError("`reasonix setup` asks questions and needs a terminal", "in scripts use: reasonix setup add NAME --preset P [--key-stdin] (see reasonix setup add --help)");
  }
  const { runSetupWizard } = await import("../core/setup/wizard.ts");
  return runSetupWizard(terminalSetupIO(), opts);
}

/**
 * For front ends about to start the agent (the terminal chat): when no
 * provider is configured and there is a terminal, run the setup wizard first.
 * Returns true when a provider exists afterwards (or already did).
 */
export async function ensureProviderOnFirstUse(opts: { home?: string } = {}): Promise<boolean> {
  const { needsSetup } = await import("../core/setup/providers.ts");
  if (!needsSetup(opts.home)) return true;
  if (!process.stdin.isTTY) return false;
  say("No model provider is configured yet. Let's add one (Ctrl-C cancels).");
  await runInteractiveSetup(opts);
  return true;
}
