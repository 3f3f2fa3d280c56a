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

export const commands: CommandModule<any, any>[] = [config, docs, doctor, sandbox, remote, run, serve, sessions, upgrade, version, web];
