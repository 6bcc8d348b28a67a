// RTF to plain text with rtf-stream-parser: its tokenizer and its plain-text converter (code pages, \u with \uc
// skipping, fonts' character sets, ignorable destinations). Between the two, two things the converter leaves to its
// caller: the paragraph mark Apple's RTF writes as a backslash before a line break (Scrivener's documents use it), and
// the groups that hold no story text (pictures, headers and footers, attachments).
import iconv from 'iconv-lite';
import { Tokenize, type Token } from 'rtf-stream-parser/dist/src/tokenize.js';
import { ToPlainText } from 'rtf-stream-parser/dist/src/ToPlainText.js';

const groupStart = 0;
const groupEnd = 1;
const control = 2;
const textToken = 3;

/** Destinations whose content is not text of the document body. */
const skippedDestinations = new Set([
  'pict', 'object', 'NeXTGraphic', 'header', 'headerl', 'headerr', 'headerf', 'footer', 'footerl', 'footerr', 'footerf',
  'info', 'footnote', 'annotation', 'fonttbl', 'colortbl', 'stylesheet', 'listtable', 'listoverridetable', 'pntext', 'pntxta', 'pntxtb',
]);

export class RtfError extends Error {}

/** The text of an RTF document, one line per paragraph; RtfError when it is not RTF or is damaged beyond reading. */
export function rtfToText(rtf: Buffer): { text: string; warnings: string[] } {
  if (!rtf.subarray(0, 6).toString('latin1').startsWith('{\\rtf')) throw new RtfError('is not an RTF document (it does not start with {\\rtf)');
  const warnings: string[] = [];
  const fail = (error?: unknown) => {
    if (error) throw error;
  };
  const tokenizer = new Tokenize();
  const converter = new ToPlainText({ decode: (data, encoding) => iconv.decode(data, encoding), warn: (message) => warnings.push(message), allowCp0: true });
  const chunks: string[] = [];
  converter.push = (chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  };
  // depth of the group being skipped (0: none), and of a group whose text is an attachment's placeholder
  let depth = 0;
  let skipFrom = 0;
  let placeholderAt = 0;
  let previous: Token | undefined;
  const forward = (token: Token) => converter._transform(token, '', fail);
  tokenizer.push = (token: Token) => {
    const last = previous;
    previous = token;
    if (token.type === groupStart) {
      depth++;
      if (!skipFrom) forward(token);
      return true;
    }
    if (token.type === groupEnd) {
      if (skipFrom === depth) {
        skipFrom = 0;
        previous = undefined;
      } else if (!skipFrom) forward(token);
      if (placeholderAt === depth) placeholderAt = 0;
      depth--;
      return true;
    }
    if (skipFrom) return true;
    if (token.type === control && last?.type === groupStart && skippedDestinations.has(token.word!)) {
      skipFrom = depth;
      // {{\NeXTGraphic name.png …}¬}: the character after the picture group stands for it in Apple's RTF.
      if (token.word === 'NeXTGraphic') placeholderAt = depth - 1;
      // The group start went to the converter already: end the group there at once.
      converter._transform({ type: groupEnd } as Token, '', fail);
      return true;
    }
    if (token.type === textToken && placeholderAt === depth) return true;
    if (token.type === control && (token.word === '\n' || token.word === '\r')) {
      forward({ type: control, word: 'par' } as Token);
      return true;
    }
    forward(token);
    return true;
  };
  try {
    tokenizer._transform(rtf, undefined, fail);
    tokenizer._flush(fail);
    converter._flush(fail);
  } catch (error) {
    throw new RtfError(`is a damaged RTF document: ${(error as Error).message}`);
  }
  // A truncated or spliced file: its groups do not close where they open.
  const broken = warnings.find((w) => /closing bracket|after final closing/i.test(w));
  if (broken) throw new RtfError(`is a damaged RTF document: ${broken.toLowerCase()}`);
  return { text: chunks.join('').replace(/\r\n?/g, '\n'), warnings };
}
