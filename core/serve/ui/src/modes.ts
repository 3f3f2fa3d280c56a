// The permission modes the mode control below the prompt box offers: those the
// server's dispatcher offers this session (core/protocol modesOffered), so a
// session the chat put in yolo (Ctrl-Y with /web open) shows it by name.
import { isPermissionMode, modesOffered } from "../../../protocol/modes.ts";
import { t } from "../../../protocol/i18n/index.ts";

/** The modes and their labels in the interface language (web.mode.<mode>) for a session in `current` (null: as configured). */
export const modeOptions = (current: string | null) => modesOffered(isPermissionMode(current) ? current : undefined).map((m) => [m, t(`web.mode.${m}`)] as const);
