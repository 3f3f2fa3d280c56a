// Inline title editor: Enter (or leaving the field) saves, Esc cancels.
import { useLayoutEffect, useRef } from "preact/hooks";

export function TitleEdit({ value, label, onDone }: { value: string; label: string; onDone: (title: string | null) => void }) {
  const ref = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  // The session being renamed is the one this editor opened for, even if the view moved on.
  const report = useRef(onDone).current;
  useLayoutEffect(() => {
    ref.current?.focus();
    ref.current?.select();
  }, []);
  const finish = (title: string | null) => {
    if (done.current) return;
    done.current = true;
    report(title === null || title.trim() === value.trim() ? null : title);
  };
  return (
    <input
      ref={ref}
      class="title-edit"
      type="text"
      aria-label={label}
      defaultValue={value}
      maxLength={120}
      onKeyDown={(e) => {
        if (e.key === "Enter" && !e.isComposing) {
          e.preventDefault();
          finish(e.currentTarget.value);
        } else if (e.key === "Escape") {
          // Not the page's Esc (cancel the running turn).
          e.preventDefault();
          e.stopPropagation();
          finish(null);
        }
      }}
      onBlur={(e) => finish(e.currentTarget.value)}
    />
  );
}
