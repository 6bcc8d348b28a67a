// Story time inside a chapter: a timed state value may begin at a point of its starting chapter, given as a line
// (1-based) or as an anchor, a short phrase of the chapter's text; it holds after that line (storyTime.ts holdsAt). An anchor is looked up in the chapter's text as it
// stands whenever the point is needed, so it follows the text through edits; one that is no longer there is reported
// (the point falls back on the line it was given, or the chapter's start), never guessed at.

/** A phrase as a pattern: its words in order, any run of whitespace between them, either kind of quotation mark. */
function phrasePattern(anchor: string): RegExp {
  const words = anchor.trim().split(/\s+/).map((w) =>
    w
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replace(/['‘’]/g, "['‘’]")
      .replace(/["“”]/g, '["“”]'),
  );
  return new RegExp(words.join('\\s+'), 'i');
}

/** The line (1-based) of `text` where `anchor` first stands, or undefined when it is not in the text. */
export function lineOf(text: string, anchor: string): number | undefined {
  const found = phrasePattern(anchor).exec(text);
  if (!found) return undefined;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < found.index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

export type StoryPoint = { fromLine: number | null; fromAnchor: string | null };

/** Where a point stands in its chapter's text: the anchor's line when found, else the line given; `lost` when not found. */
export function placePoint(text: string, point: StoryPoint): { line: number | null; lost: boolean } {
  if (!point.fromAnchor) return { line: point.fromLine, lost: false };
  const line = lineOf(text, point.fromAnchor);
  return line === undefined ? { line: point.fromLine, lost: true } : { line, lost: false };
}
