// The side panel: the session's todo list and the files it changed.
import { state } from "../store.ts";
import { FileDiffView } from "./Diff.tsx";
import { t } from "../../../../protocol/i18n/index.ts";

const MARK: Record<string, string> = { completed: "✓", in_progress: "▸" };

export function Todos() {
  const items = state.view.todos;
  return (
    <section class="panel" aria-labelledby="todo-h">
      <h2 id="todo-h">{t("web.todo")}</h2>
      <ul id="todo-list">
        {!items.length ? <li class="muted">{t("web.noTasks")}</li> : null}
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
      <h2 id="changes-h">{t("web.changedFiles")}</h2>
      {!files.length ? <p class="muted">{t("web.noChanges")}</p> : null}
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
    <aside id="side" class={`side${state.changesOpen ? " open" : ""}`} aria-label={t("web.sidePanel")}>
      <Todos />
      <ChangedFiles />
    </aside>
  );
}
