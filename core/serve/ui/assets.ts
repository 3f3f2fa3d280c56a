import { embedUi } from "./embed.ts" with { type: "macro" };
import type { UiBundle } from "./embed.ts";

/** The browser UI compiled into this binary. */
export const uiAssets: UiBundle = embedUi();
