// Reasonix web UI (Preact). Embedded into the binary by ../embed.ts and
// served by core/serve; talks to its JSON API and renders the engine's events
// as they stream in over WebSocket (SSE when WebSocket is unavailable).
import { render } from "preact";
import { api, HttpError, setUnauthorizedHandler } from "./api.ts";
import { App } from "./components/App.tsx";
import { connectLive } from "./live.ts";
import { setLanguage, t } from "../../../protocol/i18n/index.ts";
import "./web-commands.ts";
import { changed, closeSession, loadModels, loadSessions, onEnvelope, openSession, setTransport, state } from "./store.ts";

let connected = false;

/** Exchange a `#token=` fragment for the session cookie, then wipe it from the address bar. */
async function exchangeFragmentToken(): Promise<string | null> {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!m) return null;
  history.replaceState(null, "", location.pathname + location.search);
  try {
    await api("POST", "/auth/token", { token: decodeURIComponent(m[1]!) });
    return null;
  } catch {
    return "The token in the link is not valid (the server may have restarted with a new one).";
  }
}

const sessionFromPath = () => {
  const m = /^\/sessions\/([^/]+)$/.exec(location.pathname);
  return m ? decodeURIComponent(m[1]!) : null;
};

async function boot(): Promise<void> {
  let st: Record<string, any>;
  try {
    st = await api("GET", "/api/status");
  } catch (x) {
    if (x instanceof HttpError && x.status === 401) {
      state.screen = "login";
      return changed();
    }
    state.screen = "unreachable";
    state.loginMessage = (x as Error).message;
    return changed();
  }
  state.status = st;
  // The server's interface language (the user config's `language`): every t() from this render on.
  setLanguage(st.language === "zh" ? "zh" : "en");
  document.documentElement.lang = st.language === "zh" ? "zh-CN" : "en";
  state.authMode = st.authMode;
  state.lastSeq = Math.max(state.lastSeq, Number(st.lastSeq ?? 0));
  if (st.setup?.required) {
    state.screen = "setup";
    return changed();
  }
  state.screen = "app";
  if (!st.engine?.ready) state.banner = { text: t("web.engineNotReady", { error: st.engine?.error ?? "unknown error" }), tone: "error" };
  changed();
  if (!connected) {
    connected = true;
    connectLive({ since: () => state.lastSeq, onEnvelope, onTransport: setTransport });
  }
  await Promise.all([loadModels(), loadSessions()]);
  const id = sessionFromPath();
  if (id) await openSession(id, false);
  // The composer takes the focus only if nothing has it yet (a click made while the lists loaded keeps it).
  requestAnimationFrame(() => {
    if ((document.activeElement ?? document.body) === document.body) (document.getElementById("prompt") as HTMLTextAreaElement | null)?.focus();
  });
}

setUnauthorizedHandler(() => {
  state.screen = "login";
  changed();
});

window.addEventListener("popstate", () => {
  const id = sessionFromPath();
  if (id) void openSession(id, false);
  else if (location.pathname === "/" && state.current) closeSession();
});

render(<App boot={boot} />, document.getElementById("app")!);

void (async () => {
  const err = await exchangeFragmentToken();
  if (err) {
    state.screen = "login";
    state.loginMessage = err;
    return changed();
  }
  await boot();
})();
