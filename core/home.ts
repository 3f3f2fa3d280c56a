import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Reasonix's state directory: $REASONIX_HOME, else ~/.reasonix. */
export function reasonixHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.REASONIX_HOME;
  if (fromEnv && fromEnv.trim() !== "") return resolve(fromEnv);
  return join(env.HOME || homedir(), ".reasonix");
}

export const homePaths = (home = reasonixHome()) => ({
  home,
  config: join(home, "config.toml"),
  dotenv: join(home, ".env"),
  sessions: join(home, "sessions"),
  server: join(home, "server"),
  instances: join(home, "server", "instances"),
  remote: join(home, "remote"),
  knownHosts: join(home, "remote", "known_hosts"),
  bin: join(home, "bin"),
});

/** Expand a leading `~` or `~/` to the user's home directory. */
export function expandTilde(p: string, env: NodeJS.ProcessEnv = process.env): string {
  if (p === "~") return env.HOME || homedir();
  if (p.startsWith("~/")) return join(env.HOME || homedir(), p.slice(2));
  return p;
}
