// User, assistant and system entries of the transcript.
import { useState } from "preact/hooks";
import { pure } from "../pure.ts";
import { changed, state } from "../store.ts";
import type { Item } from "../transcript.ts";
import { copyText, Markdown } from "./Markdown.tsx";
import { t } from "../../../../protocol/i18n/index.ts";

type Assistant = Extract<Item, { kind: "assistant" }>;
type User = Extract<Item, { kind: "user" }>;
type System = Extract<Item, { kind: "system" }>;

export function CopyButton({ text, label = "Copy" }: { text: () => string; label?: string }) {
  const [done, setDone] = useState("");
  return (
    <button type="button" class="link" onClick={async () => {
      setDone((await copyText(text())) ? "Copied" : "Copy failed");
      setTimeout(() => setDone(""), 1500);
    }}>{done || label}</button>
  );
}

/** One model step's reasoning and text. */
function AnswerPartImpl({ a }: { a: Assistant; v: number }) {
  return (
    <>
      {a.reasoning ? (
        <details class="reasoning">
          <summary>Thinking</summary>
          <div class="reasoning-body">{a.reasoning}</div>
        </details>
      ) : null}
      {a.text ? <div class="text"><Markdown text={a.text} streaming={a.streaming} /></div> : null}
    </>
  );
}
export const AnswerPart = pure(AnswerPartImpl);

function AssistantImpl({ a }: { a: Assistant; v: number }) {
  return (
    <div class={`msg assistant${a.streaming ? " streaming" : ""}`}>
      <div class="who">Reasonix</div>
      <AnswerPart a={a} v={a.v} />
      {!a.streaming && a.text ? <div class="msg-actions"><CopyButton text={() => a.text} /></div> : null}
    </div>
  );
}
export const AssistantMessage = pure(AssistantImpl);

export interface UserActions {
  edit(u: User): void;
  retry(u: User): void;
  rewind(u: User): void;
  fork(u: User): void;
}

function UserImpl({ u, actions, idle }: { u: User; v: number; actions: UserActions; idle: boolean }) {
  return (
    <div class={`msg user${u.steer ? " steer" : ""}`} data-turn={u.turn}>
      <div class="who">{u.steer ? t("web.youSteer") : t("web.you")}</div>
      <div class="text plain">{u.text}</div>
      {!u.steer ? (
        <div class="msg-actions">
          <CopyButton text={() => u.text} />
          {idle && u.turn > 0 ? (
            <>
              <button type="button" class="link" onClick={() => actions.edit(u)}>Edit</button>
              <button type="button" class="link" onClick={() => actions.retry(u)}>Retry</button>
              <button type="button" class="link" onClick={() => actions.rewind(u)}>Rewind…</button>
            </>
          ) : null}
          {u.turn > 0 ? <button type="button" class="link fork" title="A new session with the conversation before this message; its text goes in the box to edit (files on disk are not changed)" onClick={() => actions.fork(u)}>Fork from here</button> : null}
        </div>
      ) : null}
    </div>
  );
}
export const UserMessage = pure(UserImpl);

export function SystemLine({ s }: { s: System; v: number }) {
  return (
    <div class={`system ${s.tone}`}>
      {s.text}
      {s.keyFor ? (
        <>
          {" "}
          <button type="button" class="primary small" onClick={() => { state.keyFor = s.keyFor!; changed(); }}>Enter the key</button>
        </>
      ) : null}
    </div>
  );
}
