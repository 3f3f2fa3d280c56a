/**
 * Authentication strategy for ssh2's authHandler: `none` first (to learn what the
 * server allows), then agent, identity files, password, keyboard-interactive —
 * asking for a passphrase or password only when the server would accept that method.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { homedir } from "node:os";
import { homePaths } from "../../core/home.ts";
import type { AnyAuthMethod, AuthHandlerMiddleware, AuthenticationType, ParsedKey } from "ssh2";
import type { Prompter } from "./prompt.ts";
import type { SshTarget } from "./target.ts";

export interface SecretLookup {
  get(name: string): string | undefined;
}

export interface AuthContext {
  target: SshTarget;
  prompter: Prompter;
  secrets: SecretLookup;
  /** ssh-agent socket; undefined = none. */
  agentSocket?: string;
  parseKey: (data: Buffer, passphrase?: string) => ParsedKey | ParsedKey[] | Error;
  /** Filled as methods are attempted, for error messages. */
  tried: string[];
  /** Problems worth telling the user if authentication fails (bad key file, missing passphrase…). */
  notes: string[];
}

export function defaultIdentityFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  return ["id_ed25519", "id_ecdsa", "id_rsa"].map((f) => join(home, ".ssh", f)).filter((f) => existsSync(f));
}

type Step = () => Promise<AnyAuthMethod | null>;

function lookupSecret(ctx: AuthContext, name: string | undefined): string | undefined {
  if (!name) return undefined;
  return ctx.secrets.get(name) ?? process.env[name];
}

async function loadIdentity(ctx: AuthContext, file: string): Promise<ParsedKey | null> {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (e) {
    ctx.notes.push(`cannot read identity file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    return null;
  }
  let parsed = ctx.parseKey(data);
  if (parsed instanceof Error && /encrypted|passphrase/i.test(parsed.message)) {
    let pass = lookupSecret(ctx, ctx.target.passphraseEnv);
    if (pass === undefined && ctx.prompter.interactive) pass = await ctx.prompter.secret(`Enter passphrase for key '${file}': `);
    if (pass === undefined) {
      ctx.notes.push(
        `${file} is encrypted and no passphrase is available` +
          (ctx.target.passphraseEnv ? ` (${ctx.target.passphraseEnv} is not set in ${homePaths().dotenv})` : " (set passphrase_env or run from a terminal)"),
      );
      return null;
    }
    parsed = ctx.parseKey(data, pass);
    if (parsed instanceof Error) {
      ctx.notes.push(`cannot decrypt ${file}: wrong passphrase?`);
      return null;
    }
  }
  if (parsed instanceof Error) {
    ctx.notes.push(`cannot parse identity file ${file}: ${parsed.message}`);
    return null;
  }
  return Array.isArray(parsed) ? parsed[0]! : parsed;
}

function steps(ctx: AuthContext): { method: AuthenticationType; run: Step }[] {
  const { target } = ctx;
  const user = target.user;
  const out: { method: AuthenticationType; run: Step }[] = [];
  if (ctx.agentSocket && !target.identitiesOnly) {
    out.push({ method: "publickey", run: async () => ({ type: "agent", username: user, agent: ctx.agentSocket! }) });
  }
  for (const file of target.identityFiles) {
    out.push({
      method: "publickey",
      run: async () => {
        const key = await loadIdentity(ctx, file);
        return key ? { type: "publickey", username: user, key } : null;
      },
    });
  }
  out.push({
    method: "password",
    run: async () => {
      let password = lookupSecret(ctx, target.passwordEnv);
      if (password === undefined && ctx.prompter.interactive) password = await ctx.prompter.secret(`${target.user}@${target.host}'s password: `);
      if (password === undefined) {
        if (target.passwordEnv) ctx.notes.push(`${target.passwordEnv} is not set in ${homePaths().dotenv}`);
        return null;
      }
      return { type: "password", username: user, password };
    },
  });
  out.push({
    method: "keyboard-interactive",
    run: async () => {
      const stored = lookupSecret(ctx, target.passwordEnv);
      if (stored === undefined && !ctx.prompter.interactive) return null;
      return {
        type: "keyboard-interactive",
        username: user,
        prompt: (_name, instructions, _lang, prompts, finish) => {
          void (async () => {
            if (instructions && ctx.prompter.interactive) process.stderr.write(`${instructions}\n`);
            const answers: string[] = [];
            for (const p of prompts) {
              // A stored password answers hidden prompts; anything else needs a person.
              if (!p.echo && stored !== undefined) answers.push(stored);
              else if (ctx.prompter.interactive) answers.push(await ctx.prompter.secret(p.prompt));
              else answers.push("");
            }
            finish(answers);
          })().catch(() => finish([]));
        },
      };
    },
  });
  return out;
}

const describe = (m: AnyAuthMethod): string =>
  m.type === "publickey" ? `publickey (${(m.key as ParsedKey).comment || (m.key as ParsedKey).type})` : m.type;

export function makeAuthHandler(ctx: AuthContext): AuthHandlerMiddleware {
  const queue = steps(ctx);
  let started = false;
  return (methodsLeft, _partial, next) => {
    if (!started) {
      started = true;
      return next({ type: "none", username: ctx.target.user });
    }
    const allowed = new Set(methodsLeft ?? []);
    void (async () => {
      while (queue.length > 0) {
        const step = queue.shift()!;
        if (!allowed.has(step.method)) continue;
        try {
          const m = await step.run();
          if (m) {
            ctx.tried.push(describe(m));
            return next(m);
          }
        } catch (e) {
          ctx.notes.push((e as Error).message);
        }
      }
      next(false as unknown as AuthenticationType);
    })();
  };
}
