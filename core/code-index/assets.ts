// Imported lazily (on the first code_index call): the macro below inlines the
// compressed grammars, and nothing else should pay for decoding them.
import { embedGrammars } from "./embed.ts" with { type: "macro" };
import type { EmbeddedGrammars } from "./embed.ts";

export const grammarAssets: EmbeddedGrammars = embedGrammars();
