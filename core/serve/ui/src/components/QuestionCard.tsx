// The model's question (the `ask` tool) in its tool card: radio buttons (one
// answer) or checkboxes (several), a field for an answer of one's own when the
// question allows it, Answer and Dismiss. Like an approval, nothing takes the
// focus when it arrives: answering is a click, or Tab into the form.
import { useState } from "preact/hooks";
import { api, sessionPath } from "../api.ts";
import { changed, state } from "../store.ts";
import { addSystem, type Item } from "../transcript.ts";
import { answerProblem, normalAnswer } from "../../../../protocol/question.ts";
import type { QuestionAnswer } from "../../../../protocol/events.ts";

type Tool = Extract<Item, { kind: "tool" }>;

export function QuestionCard({ t }: { t: Tool }) {
  const q = t.question!;
  const [picked, setPicked] = useState<string[]>([]);
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState("");
  const send = async (answer: QuestionAnswer) => {
    if (!state.current) return;
    setSending(true);
    try {
      await api("POST", `${sessionPath(state.current, "questions")}/${encodeURIComponent(t.callId)}`, answer);
    } catch (x) {
      setSending(false);
      addSystem(state.view, `Could not send the answer: ${(x as Error).message}`, "error");
      changed();
    }
  };
  const toggle = (label: string, on: boolean) => setPicked(q.multi ? (on ? [...picked, label] : picked.filter((l) => l !== label)) : on ? [label] : []);
  const submit = (e: Event) => {
    e.preventDefault();
    const answer = { choices: picked, ...(text.trim() ? { text } : {}) };
    const why = answerProblem(q, answer);
    setProblem(why ?? "");
    if (!why) void send(normalAnswer(q, answer));
  };
  const name = `question-${t.callId}`;
  return (
    <form class="question" aria-label={`Question: ${q.question}`} onSubmit={submit}>
      <fieldset disabled={sending}>
        <legend class="question-text">{q.question}</legend>
        {q.options.map((o) => (
          <label class="question-option" key={o.label}>
            <input type={q.multi ? "checkbox" : "radio"} name={name} value={o.label} checked={picked.includes(o.label)} onChange={(e) => toggle(o.label, (e.currentTarget as HTMLInputElement).checked)} />
            <span>{o.label}</span>
            {o.description ? <span class="question-desc"> — {o.description}</span> : null}
          </label>
        ))}
        {q.allowText ? (
          <label class="question-own">
            <span>{q.options.length ? "Other" : "Your answer"}</span>
            <input type="text" value={text} onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)} />
          </label>
        ) : null}
        {problem ? <div class="question-problem" role="alert">{problem}</div> : null}
        <div class="buttons">
          <button type="submit" class="primary">Answer</button>
          <button type="button" onClick={() => void send({ dismissed: true })}>Dismiss</button>
        </div>
      </fieldset>
    </form>
  );
}
