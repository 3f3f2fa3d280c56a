// `/web`: the browser UI in this same process, on loopback with a fresh
// token, serving the chat's own live session so both front ends stay in step
// (an approval answered in one disappears from the other).
import { randomBytes } from "node:crypto";
import type { Engine, EngineSession } from "../../core/engine/types.ts";
import type { RunningServer } from "../../core/serve/server.ts";
import type { ChatSetup } from "./setup.ts";

/**
 * The chat's engine as the server sees it: the live session is shared, never
 * closed by the server, and a model switch from the browser is the chat's own
 * (its host reopens the conversation, keeping mode and effort), so the next
 * turn — typed in either place — uses the new model. Everything else the
 * engine can do (fork, rename, the MCP listing) is passed through.
 */
function sharedEngine(setup: ChatSetup): Engine {
  const engine = setup.st.engine;
  const shared = (s: EngineSession): EngineSession =>
    new Proxy(s, {
      get(target, prop) {
        if (prop === "close") return async () => {};
        const v = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  return {
    get workspace() {
      return engine.workspace;
    },
    createSession: (o) => engine.createSession(o),
    resumeSession: async (id, o) => {
      if (id !== setup.st.session.id) return engine.resumeSession(id, o);
      if (o?.model && o.model !== setup.st.model) await setup.st.switchModel(o.model);
      return shared(setup.st.session);
    },
    forkSession: (id, o) => engine.forkSession(id, o),
    renameSession: (id, t) => engine.renameSession(id, t),
    mcpServers: () => engine.mcpServers(),
    commandSources: () => engine.commandSources(),
    mcpStarted: () => engine.mcpStarted(),
    runSubagent: (name, task, o) => engine.runSubagent(name, task, o),
    listSessions: () => engine.listSessions(),
    deleteSession: (id) => engine.deleteSession(id),
    models: () => engine.models(),
    discoverModels: (n, signal) => engine.discoverModels(n, signal),
    close: async () => {},
  };
}

export function webStarter(setup: ChatSetup, open = true): () => Promise<string> {
  let server: RunningServer | undefined;
  let token = "";
  process.once("exit", () => void server?.stop());
  return async () => {
    if (!server) {
      const { startServer } = await import("../../core/serve/server.ts");
      const { buildInfo } = await import("../../core/version.ts");
      token = randomBytes(24).toString("base64url");
      server = await startServer({
        host: "127.0.0.1",
        port: 0,
        auth: { mode: "token", token },
        workspace: setup.st.engine.workspace,
        version: buildInfo().version,
        engineFactory: () => sharedEngine(setup),
      });
    }
    // Load the live session into the server so the browser sees its turns as they run.
    await server.sessions.get(setup.st.session.id);
    const url = `${server.url.replace(/\/$/, "")}/sessions/${setup.st.session.id}#token=${token}`;
    // Only where a desktop browser can exist: openBrowser's failure hint would land in the middle of the screen.
    const desktop = process.platform === "darwin" || process.platform === "win32" || !!process.env.DISPLAY || !!process.env.WAYLAND_DISPLAY;
    if (open && desktop && !process.env.REASONIX_NO_BROWSER) {
      const { openBrowser } = await import("../open-browser.ts");
      void openBrowser(url).catch(() => {});
    }
    return url;
  };
}
