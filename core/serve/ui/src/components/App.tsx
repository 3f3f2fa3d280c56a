// Screens (sign-in, setup, the app) and the app's layout.
import { useEffect } from "preact/hooks";
import { cancel, send } from "../send.ts";
import { changed, isBusy, openSession, state, useStore } from "../store.ts";
import type { Item } from "../transcript.ts";
import { KeyDialog, Login, Setup } from "./Cards.tsx";
import { Composer, draft } from "./Composer.tsx";
import { QueueList } from "./QueueList.tsx";
import { Header } from "./Header.tsx";
import type { UserActions } from "./Messages.tsx";
import { Sessions } from "./Sessions.tsx";
import { Side } from "./Side.tsx";
import { Transcript } from "./Transcript.tsx";
import { GoalBar } from "./GoalBar.tsx";
import { Jobs } from "./Jobs.tsx";
import { Trust } from "./Trust.tsx";
import { Rewind, rewindTo } from "./Rewind.tsx";
import { MemoryPanel } from "./Memory.tsx";
import { SettingsDialog } from "./settings/Settings.tsx";
import { closeSettings, panel as settingsPanel } from "./settings/model.ts";
import { ChatHead, type ChatHeadProps } from "./ChatHead.tsx";
import { McpDialog } from "./mcp/McpDialog.tsx";
import { closeMcpDialog, mcpDialog, openMcpDialog } from "./mcp/mcp-state.ts";
import { anyModalOpen, escapeCloses } from "./modals.ts";
import { memory, openMemory } from "../memory.ts";
import { forkSession } from "../session-actions.ts";
import { pure } from "../pure.ts";
import { isBusy as busyNow, shownModel } from "../store.ts";

// Escape closes these, the top-most first, in the order Main draws them.
escapeCloses(() => !!state.keyFor, () => {
  state.keyFor = null;
  changed();
});
escapeCloses(() => !!state.rewindFor, () => {
  state.rewindFor = null;
  changed();
});
escapeCloses(() => memory.open, () => openMemory(false));
escapeCloses(() => !!mcpDialog.tab, closeMcpDialog);
escapeCloses(() => settingsPanel.open, closeSettings);

// Streamed deltas re-render only the transcript: the rest re-renders when what it shows changed.
const HeaderP = pure(Header as (p: Record<string, unknown>) => preact.JSX.Element);
const SessionsP = pure(Sessions as (p: Record<string, unknown>) => preact.JSX.Element);
const SideP = pure(Side as (p: Record<string, unknown>) => preact.JSX.Element);
const ComposerP = pure(Composer as (p: Record<string, unknown>) => preact.JSX.Element);

type User = Extract<Item, { kind: "user" }>;

const actions: UserActions = {
  edit(u: User) {
    draft.text = u.text;
    draft.onSend = async (text) => {
      if (await rewindTo(u.turn, "both")) await send(text);
    };
    changed();
  },
  async retry(u: User) {
    if (await rewindTo(u.turn, "both")) await send(u.text);
  },
  rewind(u: User) {
    state.rewindFor = u;
    changed();
  },
  fork(u: User) {
    if (state.current) void forkSession(state.current, u);
  },
};

const ChatHeadP = pure(ChatHead);

/** The chat head's props: the open session's row (title, where it was forked from). */
function chatHead(): ChatHeadProps {
  const row = state.sessions.find((s) => s.id === state.current);
  const from = row?.forkedFrom;
  return { id: state.current, title: row?.title ?? "", forkedFrom: from, fromTitle: from ? state.sessions.find((s) => s.id === from.id)?.title : undefined };
}

function Banner() {
  const b = state.banner;
  return <div id="banner" class={`banner ${b?.tone ?? "info"}`} hidden={!b} role={b?.tone === "error" ? "alert" : "status"}>{b?.text ?? ""}</div>;
}

function Main() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && isBusy() && !anyModalOpen()) {
        e.preventDefault();
        void cancel();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  const overlay = state.drawer || state.changesOpen;
  return (
    <div class="shell">
      <a class="skip-link" href="#prompt" onClick={(e) => { e.preventDefault(); document.getElementById("prompt")?.focus(); }}>Skip to composer</a>
      <HeaderP status={state.status} models={state.models} transport={state.transport} drawer={state.drawer} side={state.changesOpen} model={shownModel()} selected={state.selectedModel} busy={busyNow()} />
      <div class="body">
        <SessionsP sessions={state.sessions} current={state.current} drawer={state.drawer} busy={[...state.busy].join(",")} />
        {overlay ? <div class="scrim narrow-only" onClick={() => { state.drawer = state.changesOpen = false; changed(); }} /> : null}
        <main class="chat" aria-label="Conversation">
          <ChatHeadP key={state.current ?? ""} {...chatHead()} />
          <Banner />
          <Trust />
          <Transcript actions={actions} />
          <GoalBar id={state.current} goal={state.view.goal} view={state.view} />
          <QueueList id={state.current} />
          <Jobs id={state.current} />
          <ComposerP current={state.current} busy={busyNow()} mode={state.mode} usage={state.view.usage} models={state.models} model={shownModel()} draft={draft.onSend} />
        </main>
        <SideP todos={state.view.todos} files={state.view.filesV} view={state.view} open={state.changesOpen} />
      </div>
      <div class="sr" role="status" aria-live="polite" id="announce">{state.announce}</div>
      <KeyDialog />
      <Rewind />
      <MemoryPanel />
      <McpDialog />
      <SettingsDialog onBrowseRegistry={() => { closeSettings(); openMcpDialog("browse"); }} onImport={() => { closeSettings(); openMcpDialog("import"); }} />
    </div>
  );
}

export function App({ boot }: { boot: () => Promise<void> }) {
  useStore();
  useEffect(() => {
    const host = state.status?.host ? ` — ${state.status.host}` : "";
    const s = state.sessions.find((x) => x.id === state.current);
    document.title = `${s?.title ? `${s.title.slice(0, 40)} · ` : ""}Reasonix${host}`;
  });
  switch (state.screen) {
    case "login":
      return <Login onDone={boot} />;
    case "setup":
      return <Setup onDone={boot} />;
    case "unreachable":
      return <p class="card-page">Cannot reach the server: {state.loginMessage}</p>;
    case "loading":
      return <p class="card-page muted">Loading…</p>;
    default:
      return <Main />;
  }
}

export { openSession };
