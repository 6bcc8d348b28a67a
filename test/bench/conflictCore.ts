// The conflict check's bench line (issue 16): the deterministic core on a passage of about 1,000 words naming 20
// entities (15 characters, 5 places) of the seeded 5,000-entity project, timed on its canon slice alone (the slice is
// loaded once, outside the timing; the model is not called), and the size of the prompt a whole check of that passage
// would send the model. Used by `npm run bench` and by `npm run eval -- --large`.
import { loadCanonSlice, type CanonSlice, type SliceStore } from '../../src/core/conflicts/canonSlice.ts';
import { buildCheckPrompt, checkSystemPrompt } from '../../src/core/conflicts/checker.ts';
import { findDeterministicConflicts } from '../../src/core/conflicts/deterministic.ts';
import { namePicker, timeRuns } from './timing.ts';

export const coreTarget = { ms: 50, promptTokens: 4_000 };

/** About 1,000 words of scenes naming the given characters and places in turn (dialogue, conditions, pronouns). */
export function corePassage(who: string[], where: string[]): { text: string; words: number } {
  const scenes = [
    (a: string, b: string, p: string) => `${a} came down to ${p} before the tide turned, and ${b} followed a few steps behind, saying nothing about the debt.`,
    (a: string, b: string, p: string) => `"You are late again," ${a} said, and ${b} only shrugged and looked out across ${p} towards the grey water.`,
    (a: string, b: string, p: string) => `At dusk ${a} lit the lamps in ${p}; she had promised ${b} that nobody would go hungry while the boats were out.`,
    (a: string, b: string) => `${a} had not seen ${b} since the flood, and he did not know whether to laugh or to turn away.`,
    (a: string, b: string, p: string) => `The wind rose over ${p}. ${a} pulled her coat tighter and asked ${b} whether the ferry would run in the morning.`,
    (a: string, b: string) => `If ${a} had known what ${b} carried in that box, she would never have let him aboard, or so she told herself later.`,
  ];
  const sentences: string[] = [];
  let words = 0;
  for (let i = 0; words < 1_000; i++) {
    const sentence = scenes[i % scenes.length](who[i % who.length], who[(i * 7 + 3) % who.length], where[i % where.length]);
    sentences.push(sentence);
    words += sentence.split(/\s+/).length;
  }
  return { text: sentences.map((sentence, i) => `${sentence}${(i + 1) % 4 === 0 ? '\n\n' : ' '}`).join('').trim(), words };
}

/** Median and 90th percentile of the core on one passage and slice, after ten warm-ups (the first loads the English model, the rest let the JIT settle). */
export function timeCore(text: string, slice: CanonSlice, runs = 50) {
  return timeRuns(() => findDeterministicConflicts(text, slice, null), runs, 10);
}

/** The bench line on a seeded project: 20 approved entities picked with a fixed seed, the core timed, the prompt sized. */
export async function benchConflictCore(store: SliceStore, projectId: string): Promise<string> {
  const { prisma } = store;
  const pick = await namePicker(prisma, projectId, 161616);
  const { text, words } = corePassage(pick('character', 15), pick('location', 5));
  const total = await prisma.entity.count({ where: { projectId } });
  const slice = await loadCanonSlice(store, projectId, text);
  const timing = await timeCore(text, slice);
  // Counted as the checker counts a provider that reports no usage: a token per four characters.
  const promptTokens = Math.ceil((checkSystemPrompt.length + buildCheckPrompt(slice, text, null).length) / 4);
  const met = timing.medianMs < coreTarget.ms && promptTokens < coreTarget.promptTokens;
  return (
    `conflict check core: ${words} words naming ${slice.entities.length} entities of a ${total.toLocaleString('en')}-entity project: median ${timing.medianMs.toFixed(1)} ms, ` +
    `p90 ${timing.p90Ms.toFixed(1)} ms over ${timing.runs} runs (target < ${coreTarget.ms} ms); prompt ~${promptTokens} tokens (target < ${coreTarget.promptTokens}): ${met ? 'met' : 'NOT met'}`
  );
}
