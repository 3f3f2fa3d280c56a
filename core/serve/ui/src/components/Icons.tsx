// Small inline SVG icons (system fonts lack a fork glyph; no icon font to ship).
const svg = (d: string) => (
  <svg class="ico" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
    <path d={d} fill="none" stroke="currentColor" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round" />
  </svg>
);

/** Two branches from one stem. */
export const ForkIcon = () => svg("M4.5 2.5v3.5a2 2 0 0 0 2 2h3a2 2 0 0 0 2-2V2.5M8 8v5.5M4.5 2.5h0M11.5 2.5h0M8 13.5h0");
export const PencilIcon = () => svg("M10.5 2.5l3 3L6 13H3v-3z");
