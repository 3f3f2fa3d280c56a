// The prompt box: Enter sends (or, while a turn runs, steers it), Shift+Enter
// adds a line, Esc cancels; the permission mode and token/cost use below it.
import { useEffect, useRef } from "preact/hooks";
import { cancel, send } from "../send.ts";
import { isBusy, shownModel, state } from "../store.ts";
import { setMode } from "../web-commands.ts";
import { Mentions, useMentions } from "./Mentions.tsx";
import { SlashMenu, useSlashMenu } from "./SlashMenu.tsx";
import { Attachments, dropImages, onPasteImages } from "./Attachments.tsx";
import { attachments } from "../attachments.ts";
import { SELECTABLE_MODES } from "../../../../protocol/modes.ts";

const LABELS: Record<(typeof SELECTABLE_MODES)[number], string> = {
  ask: "Ask before changes",
  auto: "Auto (allow edits)",
  plan: "Plan (read only, plan first)",
  "read-only": "Read only",
};
const MODES = SELECTABLE_MODES.map((m) => [m, LABELS[m]] as const);

/** Text the composer should take (Edit on an earlier message). */
export const draft = { text: "", onSend: null as null | ((text: string) => Promise<void>) };

const n = (x: number) => (x >= 10_000 ? `${(x / 1000).toFixed(1)}k` : String(x));

export function UsageLine() {
  const u = state.view.usage;
  if (!u) return <div id="usage" class="usage" />;
  const win = Number(state.models.find((m) => m.name === shownModel())?.contextWindow ?? 0);
  const ctx = win > 0 && u.lastPrompt > 0 ? ` · context ${Math.min(100, Math.round((u.lastPrompt / win) * 100))}% of ${n(win)}` : u.lastPrompt ? ` · context ${n(u.lastPrompt)} tokens` : "";
  const cost = u.cost ? ` · cost ${u.cost.total.toFixed(4)} ${u.cost.currency}` : "";
  return <div id="usage" class="usage">{`tokens in ${n(u.inputTokens)} · out ${n(u.outputTokens)} · cache hit ${Math.round(u.cacheHitPercent)}%${cost}${ctx}`}</div>;
}

export function Composer() {
  const box = useRef<HTMLTextAreaElement>(null);
  const busy = isBusy();
  const mentions = useMentions(box);
  const slash = useSlashMenu(box);
  useEffect(() => {
    if (draft.text && box.current) {
      box.current.value = draft.text;
      draft.text = "";
      box.current.focus();
    }
  });
  const submit = async () => {
    const el = box.current!;
    const text = el.value;
    if (!text.trim() && !attachments.list.length) return;
    el.value = "";
    const custom = draft.onSend;
    draft.onSend = null;
    if (custom) return custom(text);
    if (!(await send(text))) el.value = text;
  };
  const onKey = (e: KeyboardEvent) => {
    if (slash.onKey(e) || mentions.onKey(e)) return;
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void submit();
    }
  };
  return (
    <form id="composer" class="composer" onSubmit={(e) => { e.preventDefault(); void submit(); }} {...dropImages}>
      <Attachments />
      <div class="prompt-wrap">
        <textarea id="prompt" ref={box} rows={3} placeholder={busy ? "Add guidance for the running turn…" : "Message Reasonix… (@ to mention a file)"} aria-label="Prompt" aria-describedby="composer-hint" data-slash-settled={slash.settled} data-slash-answered={slash.answered} data-mentions-answered={mentions.answered} onKeyDown={onKey} onPaste={onPasteImages} onInput={() => (mentions.onInput(), slash.onInput())} />
        <Mentions m={mentions} />
        <SlashMenu m={slash} />
      </div>
      <div class="composer-bar">
        <span id="composer-hint" class="hint">{busy ? "Working: Enter sends guidance to this turn, Esc cancels." : draft.onSend ? "Editing: sending replaces that message and everything after it." : ""}</span>
        {/* On a new session's draft too: picking a mode there creates the session (web-commands.ts setMode). */}
        <label class="mode">
          <span class="sr">Permission mode</span>
          <select id="mode" aria-label="Permission mode" value={state.mode ?? ""} onChange={(e) => void setMode((e.target as HTMLSelectElement).value)}>
            {state.mode ? null : <option value="">Mode: as configured</option>}
            {MODES.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
        <button id="cancel" type="button" class="danger" hidden={!busy} onClick={() => void cancel()}>Cancel (Esc)</button>
        <button id="send" type="submit" class="primary">{busy ? "Steer" : "Send"}</button>
      </div>
      <UsageLine />
    </form>
  );
}
