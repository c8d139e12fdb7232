/** Shapes the viewer's parts hand each other. */
import type { TextMatch } from '../../../../lib/api/types';
import type { ViewerVersion } from '../../api/viewer';

/** The way to the file's original: a sandboxed tab, or a download. */
export interface Original {
  label: string;
  /** Saved to the device (else opened in a tab). */
  download: boolean;
  onClick: () => void;
}

/** What a page needs for its text layer and highlights. */
export interface PageText {
  version: ViewerVersion;
  textLayer: boolean;
  matchesOn: (page: number) => readonly TextMatch[];
  current: TextMatch | null;
}

/** A PDF's pages: the one shown, how many, and turning to another (kept within the count). */
export interface PageTurn {
  page: number;
  count: number;
  turn: (page: number) => void;
}
