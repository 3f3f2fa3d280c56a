// `/web`: the browser UI in this same process, on loopback with a fresh
// token, serving the chat's own session host (core/host) so both front ends
// stay in step: an approval answered in one disappears from the other, and a
// model, mode or effort chosen in one is the other's.
import { randomBytes } from "node:crypto";
import type { Engine } from "../../core/engine/types.ts";
import type { RunningServer } from "../../core/serve/server.ts";
import type { ChatSetup } from "./setup.ts";

/**
 * The chat's engine as the server sees it: the server may rebuild its engine
 * (a trust approval, a saved key) and closes the old one then; the chat's
 * engine stays open for the chat.
 */
function borrowed(engine: Engine): Engine {
  return new Proxy(engine, {
    get(target, prop) {
      if (prop === "close") return async () => {};
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

export function webStarter(setup: ChatSetup, open = true): () => Promise<string> {
  let server: RunningServer | undefined;
  let token = "";
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
        engineFactory: () => borrowed(setup.st.engine),
      });
      // It stops when the chat ends (its listening socket would keep the process alive).
      const running = server;
      setup.st.onClose(() => running.stop());
      // One host for both front ends: a model, mode or effort change in either is the other's.
      server.sessions.share(setup.st.sessionHost!);
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
