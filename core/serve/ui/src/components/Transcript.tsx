// The open session's transcript. Sticks to the bottom while the user is at
// the bottom; opening a session or sending jumps there.
import { useLayoutEffect, useRef } from "preact/hooks";
import { isBusy, state } from "../store.ts";
import type { Item } from "../transcript.ts";
import { answerText } from "../../../../protocol/fold.ts";
import { AnswerPart, AssistantMessage, CopyButton, SystemLine, UserMessage, type UserActions } from "./Messages.tsx";
import { ToolCard } from "./ToolCard.tsx";

const NEAR = 80;

type Assistant = Extract<Item, { kind: "assistant" }>;

/**
 * A turn whose answer came in parts (a step's text after a tool call): one
 * answer, the tool cards between its parts, one Copy of the whole.
 */
function TurnAnswer({ items, render }: { items: Item[]; render: (it: Item) => preact.JSX.Element }) {
  const parts = items.filter((i): i is Assistant => i.kind === "assistant" && !!i.answerOf);
  const streaming = parts.some((p) => p.streaming);
  const text = answerText(parts);
  return (
    <div class={`msg assistant turn-answer${streaming ? " streaming" : ""}`}>
      <div class="who">Reasonix</div>
      {items.map((it) => (parts.includes(it as Assistant) ? <div key={it.key} class="answer-part"><AnswerPart a={it as Assistant} v={it.v} /></div> : render(it)))}
      {!streaming && text ? <div class="msg-actions"><CopyButton text={() => text} /></div> : null}
    </div>
  );
}

/** The items as shown: a turn's answer parts and what lies between them grouped into one answer. */
function grouped(items: Item[], render: (it: Item) => preact.JSX.Element): preact.JSX.Element[] {
  const last = new Map<string, number>();
  items.forEach((it, i) => {
    if (it.kind === "assistant" && it.answerOf) last.set(it.answerOf, i);
  });
  const out: preact.JSX.Element[] = [];
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    const end = it.kind === "assistant" && it.answerOf === it.key ? last.get(it.key) : undefined;
    if (end === undefined) {
      out.push(render(it));
      continue;
    }
    out.push(<TurnAnswer key={it.key} items={items.slice(i, end + 1)} render={render} />);
    i = end;
  }
  return out;
}

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
      {grouped(view.items, (it: Item) =>
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
