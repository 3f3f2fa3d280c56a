// The CLI's command registry. Each feature adds its one module here.
import type { CommandModule } from "yargs";
import config from "./config.ts";
import docs from "./docs.ts";
import doctor from "./doctor.ts";
import sandbox from "./sandbox.ts";
import remote from "./remote.ts";
import run from "./run.ts";
import serve from "./serve.ts";
import upgrade from "./upgrade.ts";
import sessions from "./sessions.ts";
import version from "./version.ts";
import web from "./web.ts";

// Listed in the order `reasonix --help` shows them: daily use first.
export const commands: CommandModule<any, any>[] = [run, web, serve, sessions, remote, sandbox, config, docs, doctor, upgrade, version];
