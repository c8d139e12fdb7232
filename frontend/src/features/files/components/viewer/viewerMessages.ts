/** The viewer's words added by issue 50: the original's buttons, find in the document, the
 * patient strip, a DOCX shown as HTML. (The viewer's earlier words are VIEWER_MSG.) */
export const VIEWER_TEXT = {
  /** The original of a type the browser shows, opened in a new tab (iOS Safari: this tab). */
  openOriginalTab: 'Open original (new tab)',
  openOriginalHere: 'Open original',
  downloadOriginal: 'Download original',
  /** A type the browser would only download (a DOCX, an archive): never a blank tab. */
  notShownDownload: 'This type of file cannot be shown here. Download the original to see it on your device.',
  downloadIt: 'Download the original to see it on your device.',
  htmlRegion: (name: string) => `Document: ${name}`,
  // Find in the document
  findLabel: 'Find in document',
  find: 'Find',
  previousMatch: 'Previous match',
  nextMatch: 'Next match',
  searching: 'Searching…',
  noMatches: 'No matches',
  /** The server's find ran out of time before the end of a long document (partial). */
  partial: 'Showing matches found so far',
  noMatchesSoFar: 'No matches found so far: the document is too long to search to its end.',
  findFailed: 'The search in this file failed.',
  matchPosition: (n: number, total: number, capped: boolean) => `Match ${n} of ${total}${capped ? '+' : ''}`,
  textLayer: (page: number) => `Text of page ${page}`,
  // The patient strip
  patient: 'Patient',
  born: 'Born',
  record: 'Record no.',
  patientLoading: 'Loading patient…',
  patientUnknown: 'Patient details not recorded',
  patientFailed: 'Patient details could not be loaded.',
  fitWidth: 'Fit to width',
  fitScreen: 'Fit to screen',
  /** A text's zoom back to its own size. */
  fitText: 'Fit: normal text size',
} as const;
