// The side panel: the session's todo list and the files it changed.
import { state } from "../store.ts";
import { FileDiffView } from "./Diff.tsx";

const MARK: Record<string, string> = { completed: "✓", in_progress: "▸" };

export function Todos() {
  const items = state.view.todos;
  return (
    <section class="panel" aria-labelledby="todo-h">
      <h2 id="todo-h">Todo</h2>
      <ul id="todo-list">
        {!items.length ? <li class="muted">No tasks yet.</li> : null}
        {items.map((it, i) => (
          <li key={i} class={`todo ${it.status}`}>
            <span class="mark" aria-hidden="true">{MARK[it.status] ?? "○"}</span>
            <span>{it.content}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function ChangedFiles() {
  const files = [...state.view.changed];
  return (
    <section class="panel" aria-labelledby="changes-h">
      <h2 id="changes-h">Changed files</h2>
      {!files.length ? <p class="muted">No files changed yet.</p> : null}
      <ul id="changed-files">
        {files.map(([path, diffs]) => {
          const add = diffs.reduce((n, d) => n + d.added, 0);
          const del = diffs.reduce((n, d) => n + d.removed, 0);
          return (
            <li key={path}>
              <details>
                <summary><span class="path">{path}</span> <span class="plus">+{add}</span> <span class="minus">−{del}</span></summary>
                {diffs.map((d, i) => <FileDiffView key={i} d={d} />)}
              </details>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export function Side() {
  return (
    <aside id="side" class={`side${state.changesOpen ? " open" : ""}`} aria-label="Todo list and changed files">
      <Todos />
      <ChangedFiles />
    </aside>
  );
}
