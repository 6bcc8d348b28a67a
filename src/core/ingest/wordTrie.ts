// Terms of several words (names and aliases) in a tree keyed word by word, so that finding the longest term starting at
// a word of a text costs the words it walks, whatever the number of terms: an index by first word alone had every
// "the" of a chapter try each of thousands of aliases that start with it ("the Captain", "the Elder"…).

type Node<T> = { next: Map<string, Node<T>>; values: T[] };

export class WordTrie<T> {
  private readonly root: Node<T> = { next: new Map(), values: [] };

  /** Adds `value` under `words` (at least one word); values under the same words keep the order they were added in. */
  add(words: readonly string[], value: T): void {
    let node = this.root;
    for (const word of words) {
      let child = node.next.get(word);
      if (!child) node.next.set(word, (child = { next: new Map(), values: [] }));
      node = child;
    }
    node.values.push(value);
  }

  /**
   * The values of the longest term whose words are `wordAt(i)`, `wordAt(i + 1)`…, with its length in words; undefined
   * when no term starts there. `wordAt` answers undefined past the text's end.
   */
  longestAt(wordAt: (i: number) => string | undefined, i: number): { words: number; values: readonly T[] } | undefined {
    let node = this.root;
    let found: { words: number; values: readonly T[] } | undefined;
    for (let k = 0; ; k++) {
      const word = wordAt(i + k);
      const child = word === undefined ? undefined : node.next.get(word);
      if (!child) return found;
      node = child;
      if (node.values.length > 0) found = { words: k + 1, values: node.values };
    }
  }
}
