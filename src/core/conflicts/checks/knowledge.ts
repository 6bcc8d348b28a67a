// Who knows what, when: the plain case of a character speaking of what they cannot know yet. Precisely:
// - a quotation is a run of words inside quotation marks (nlp.ts `quoted`); one a speech tag interrupts is two;
// - its speaker is the character a speech tag names right after it ('"…," Ada said.' / '"…," said Ada.') or right
//   before it ('Ada said, "…"'): the narration between the quotation and the end of its sentence (or its start), in
//   the same paragraph, holds a verb of saying (lexicon.ts `reporting`) and names a character of the slice (by name,
//   alias, or a pronoun the reader resolved); a quotation without one is nobody's and is not judged;
// - it says the words of a fact when every content word of the fact's text (nouns, names, verbs, adjectives and
//   numbers, compared by lemma, so "spies" meets "spy") stands in that one quotation;
// - the fact is one the speaker does not know yet at the passage's point (knowledge.ts: secret, or known by others
//   only, or learned by the speaker later) while the reader does;
// - not flagged: a quotation that asks (ends with "?") or denies ("not", "never" before its words).
// A hit cites the speaker and the fact, and quotes the quotation.
import type { UnawareFact } from '../canonSlice.ts';
import type { ConflictDraft } from '../kinds.ts';
import { read, type Token } from '../reader/nlp.ts';
import { quotations, speakerNear } from '../reader/speech.ts';
import { quoteAt, spanAt, type Passage } from './passage.ts';

const contentTags = new Set(['NOUN', 'PROPN', 'VERB', 'ADJ', 'NUM']);

const isContent = (t: Token) => contentTags.has(t.pos) && /[\p{L}\p{N}]/u.test(t.text);

/** The content words of a fact's text, as lemmas (and lower-case forms, for names the lemmatiser leaves alone). */
function contentOf(text: string): string[] {
  return [...new Set(read(text).tokens.filter(isContent).map((t) => t.lemma))];
}

export function knowledgeViolations(p: Passage): ConflictDraft[] {
  const unaware = p.slice.unaware;
  if (Object.keys(unaware).length === 0) return [];
  const { tokens, text } = p.reading;
  const hits: ConflictDraft[] = [];
  const contents = new Map<string, string[]>();
  const wordsOf = (f: UnawareFact) => contents.get(f.id) ?? contents.set(f.id, contentOf(f.text)).get(f.id)!;
  for (const q of quotations(text, tokens)) {
    const speaker = speakerNear(p, q);
    const facts = speaker && unaware[speaker.id];
    if (!speaker || !facts) continue;
    const said = tokens.slice(q.first, q.last + 1);
    const closing = tokens[q.last + 1];
    if (said.at(-1)?.text === '?' || closing?.text === '?' || said.some((t) => t.negated || t.lower === 'not' || t.lower === 'never')) continue;
    const present = new Set(said.flatMap((t) => [t.lemma, t.lower]));
    for (const fact of facts) {
      const needed = wordsOf(fact);
      if (needed.length === 0 || !needed.every((w) => present.has(w))) continue;
      hits.push({
        severity: 'P2',
        kind: 'knowledge_violation',
        episode: p.episode,
        title: `${speaker.name} speaks of what they do not know yet`,
        rationale: `${speaker.name} says ${quoteAt(p, q.first, q.last)}, the words of "${fact.text}" (${fact.id}), which ${speaker.name} does not know yet at this point of the story${fact.learned ? ` (they learn it in ${fact.learned})` : ' (nobody has told them)'}.`,
        refs: [speaker.id, fact.id],
        at: spanAt(p, q.first, q.last),
      });
    }
  }
  return hits;
}
