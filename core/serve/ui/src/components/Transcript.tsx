// The open session's transcript. Sticks to the bottom while the user is at
// the bottom; opening a session or sending jumps there.
import { useLayoutEffect, useRef } from "preact/hooks";
import { isBusy, state } from "../store.ts";
import type { Item } from "../transcript.ts";
import { AssistantMessage, SystemLine, UserMessage, type UserActions } from "./Messages.tsx";
import { ToolCard } from "./ToolCard.tsx";

const NEAR = 80;

export function Transcript({ actions }: { actions: UserActions }) {
  const ref = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const seen = useRef(-1);
  const view = state.view;
  if (seen.current !== state.stick) {
    seen.current = state.stick;
    stick.current = true;
  }
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  });
  const onScroll = () => {
    const el = ref.current!;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR;
  };
  const idle = !isBusy();
  const empty = !view.items.length && !state.loading;
  return (
    <div id="transcript" class="transcript" ref={ref} onScroll={onScroll} tabIndex={-1}>
      {empty ? (
        <div class="empty" id="empty">
          {state.current ? "New session. " : ""}Ask for a change, a fix or an explanation. Enter sends, Shift+Enter adds a line, Esc cancels.
        </div>
      ) : null}
      {state.loading && !view.items.length ? (
        <div class="empty" role="status">
          Opening the session…
        </div>
      ) : null}
      {view.items.map((it: Item) =>
        it.kind === "user" ? <UserMessage key={it.key} u={it} v={it.v} actions={actions} idle={idle} />
        : it.kind === "assistant" ? <AssistantMessage key={it.key} a={it} v={it.v} />
        : it.kind === "tool" ? <ToolCard key={it.key} t={it} v={it.v} />
        : <SystemLine key={it.key} s={it} v={it.v} />,
      )}
      {view.thinking && isBusy() ? (
        <div class="working" role="status">
          <span class="dots" aria-hidden="true"><i /><i /><i /></span> Working…
        </div>
      ) : null}
    </div>
  );
}
