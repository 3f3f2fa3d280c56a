// The pictures waiting in the composer: a thumbnail each with its token
// (`image #N`, as the prompt names it) and a button that removes it; a refused
// file is said under them. Paste (Ctrl+V) and drop onto the composer add them.
import { attachFiles, attachments, detach } from "../attachments.ts";
import { useStore } from "../store.ts";

/** The image files a paste or drop carries (text pastes go on as usual). */
export function imageFiles(data: DataTransfer | null): File[] {
  return [...(data?.files ?? [])].filter((f) => f.type.startsWith("image/") || f.type === "");
}

/** Paste handler for the prompt box: pictures are attached, text pastes as usual. */
export function onPasteImages(e: ClipboardEvent): void {
  const files = imageFiles(e.clipboardData);
  if (files.length === 0) return;
  e.preventDefault();
  void attachFiles(files);
}

/** Drop handlers for the composer. */
export const dropImages = {
  onDragOver: (e: DragEvent) => {
    if ([...(e.dataTransfer?.types ?? [])].includes("Files")) e.preventDefault();
  },
  onDrop: (e: DragEvent) => {
    const files = [...(e.dataTransfer?.files ?? [])];
    if (files.length === 0) return;
    e.preventDefault();
    void attachFiles(files);
  },
};

export function Attachments() {
  useStore(); // re-render on changed(), wherever the composer sits
  const { list, error } = attachments;
  if (list.length === 0 && !error) return null;
  return (
    <div class="attachments">
      {list.length ? (
        <ul id="attachments" aria-label="Pictures to send">
          {list.map((a) => (
            <li key={a.n} class="attachment" data-image={a.n} title={a.name}>
              <img src={`data:${a.mediaType};base64,${a.data}`} alt={`image #${a.n}: ${a.name}`} />
              <span class="token">[image #{a.n}]</span>
              <button type="button" class="remove" aria-label={`Remove image #${a.n}`} onClick={() => detach(a.n)}>×</button>
            </li>
          ))}
        </ul>
      ) : null}
      {error ? <div id="attach-error" class="attach-error" role="alert">{error}</div> : null}
    </div>
  );
}
