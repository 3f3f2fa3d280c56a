// The CLI's command registry. Each feature adds its one module here.
import type { CommandModule } from "yargs";
import acp from "./acp.ts";
import chat from "./chat.ts";
import config from "./config.ts";
import docs from "./docs.ts";
import doctor from "./doctor.ts";
import login from "./login.ts";
import mcp from "./mcp.ts";
import memory from "./memory.ts";
import logout from "./logout.ts";
import sandbox from "./sandbox.ts";
import remote from "./remote.ts";
import report from "./report.ts";
import run from "./run.ts";
import serve from "./serve.ts";
import setup from "./setup.ts";
import upgrade from "./upgrade.ts";
import sessions from "./sessions.ts";
import subagent from "./subagent.ts";
import trust from "./trust.ts";
import version from "./version.ts";
import web from "./web.ts";
import whoami from "./whoami.ts";

// Listed in the order `reasonix --help` shows them: daily use first.
export const commands: CommandModule<any, any>[] = [chat, run, web, serve, acp, sessions, memory, subagent, remote, mcp, sandbox, trust, setup, config, docs, doctor, report, login, logout, whoami, upgrade, version];
