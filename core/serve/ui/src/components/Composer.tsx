// The prompt box: Enter sends (or, while a turn runs, steers it), Shift+Enter
// adds a line, Esc cancels; the permission mode and token/cost use below it.
import { useEffect, useRef, useState } from "preact/hooks";
import { cancel, send } from "../send.ts";
import { queueAct } from "../queue.ts";
import { isBusy, shownModel, state } from "../store.ts";
import { setMode } from "../web-commands.ts";
import { Mentions, useMentions } from "./Mentions.tsx";
import { SlashMenu, useSlashMenu } from "./SlashMenu.tsx";
import { Attachments, dropImages, onPasteImages } from "./Attachments.tsx";
import { attachments, clearAttachments, queuedWithAttachments } from "../attachments.ts";
import { modeOptions } from "../modes.ts";
import { shellLine } from "../../../../protocol/shell-line.ts";
import { t } from "../../../../protocol/i18n/index.ts";

/** Text the composer should take (Edit on an earlier message). */
export const draft = { text: "", onSend: null as null | ((text: string) => Promise<void>) };

const n = (x: number) => (x >= 10_000 ? `${(x / 1000).toFixed(1)}k` : String(x));

export function UsageLine() {
  const u = state.view.usage;
  if (!u) return <div id="usage" class="usage" />;
  const win = Number(state.models.find((m) => m.name === shownModel())?.contextWindow ?? 0);
  const ctx = win > 0 && u.lastPrompt > 0 ? t("web.usageCtxPercent", { p: Math.min(100, Math.round((u.lastPrompt / win) * 100)), win: n(win) }) : u.lastPrompt ? t("web.usageCtxTokens", { n: n(u.lastPrompt) }) : "";
  const cost = u.cost ? t("web.usageCost", { cost: `${u.cost.total.toFixed(4)} ${u.cost.currency}` }) : "";
  return <div id="usage" class="usage">{`${t("web.usage", { in: n(u.inputTokens), out: n(u.outputTokens), hit: Math.round(u.cacheHitPercent) })}${cost}${ctx}`}</div>;
}

export function Composer() {
  const box = useRef<HTMLTextAreaElement>(null);
  const busy = isBusy();
  const mentions = useMentions(box);
  const slash = useSlashMenu(box);
  // `!command` is the server's to run (core/protocol/shell-line.ts); the composer only says what Enter will do.
  const [shell, setShell] = useState(false);
  const typed = () => setShell(shellLine(box.current?.value ?? "") !== undefined);
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
    typed();
    const custom = draft.onSend;
    draft.onSend = null;
    if (custom) return custom(text);
    if (!(await send(text))) el.value = text;
    typed();
  };
  // For after the running turn, with the pictures attached: the box (and the pictures) clear only once the server has it on disk.
  const enqueue = async () => {
    const el = box.current!;
    const text = el.value.trim();
    if (!(text || attachments.list.length) || !state.current) return;
    if (await queueAct(state.current, queuedWithAttachments(text))) {
      el.value = "";
      clearAttachments();
    }
  };
  const onKey = (e: KeyboardEvent) => {
    if (slash.onKey(e) || mentions.onKey(e)) return;
    if (e.key === "Enter" && e.altKey && busy) {
      e.preventDefault();
      void enqueue();
      return;
    }
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void submit();
    }
  };
  return (
    <form id="composer" class="composer" onSubmit={(e) => { e.preventDefault(); void submit(); }} {...dropImages}>
      <Attachments />
      <div class="prompt-wrap">
        <textarea id="prompt" ref={box} rows={3} placeholder={busy ? t("web.placeholderBusy") : t("web.placeholder")} aria-label={t("web.prompt")} aria-describedby="composer-hint" data-slash-settled={slash.settled} data-slash-answered={slash.answered} data-mentions-answered={mentions.answered} onKeyDown={onKey} onPaste={onPasteImages} onInput={() => (mentions.onInput(), slash.onInput(), typed())} />
        <Mentions m={mentions} />
        <SlashMenu m={slash} />
      </div>
      <div class="composer-bar">
        <span id="composer-hint" class="hint">{shell ? (busy ? t("web.hintShellBusy") : t("web.hintShell")) : busy ? t("web.hintBusy") : draft.onSend ? t("web.hintEditing") : ""}</span>
        {/* On a new session's draft too: picking a mode there creates the session (web-commands.ts setMode). */}
        <label class="mode">
          <span class="sr">{t("web.permissionMode")}</span>
          <select id="mode" aria-label={t("web.permissionMode")} value={state.mode ?? ""} onChange={(e) => void setMode((e.target as HTMLSelectElement).value)}>
            {state.mode ? null : <option value="">{t("web.modeConfigured")}</option>}
            {modeOptions(state.mode).map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
        <button id="cancel" type="button" class="danger" hidden={!busy} onClick={() => void cancel()}>{t("web.cancel")}</button>
        <button id="queue-add" type="button" hidden={!busy} onClick={() => void enqueue()}>{t("web.queue")}</button>
        <button id="send" type="submit" class="primary">{busy ? t("web.steer") : t("web.send")}</button>
      </div>
      <UsageLine />
    </form>
  );
}
