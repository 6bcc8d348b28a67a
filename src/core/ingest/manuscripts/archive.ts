// A zip archive (what a .docx is) read without trusting it: the entry count and the sizes its central directory
// declares are checked before anything is inflated, and each entry is inflated as a stream that stops at its declared
// size (yauzl checks that) and at what the whole archive may inflate to, since a forged directory can declare anything.
import yauzl, { type Entry } from 'yauzl';

/** What one archive may hold: far more than any manuscript needs, far less than a zip bomb inflates to. */
export const maxArchiveEntries = 5_000;
export const maxInflatedBytes = 128 * 1024 * 1024;

/** An archive over the limits: its message says which limit, and by how much. */
export class ArchiveTooLarge extends Error {}
/** An archive that is not a zip, or whose entries are not what its directory says. */
export class ArchiveCorrupt extends Error {}

export type ArchiveLimits = { entries: number; bytes: number };

export type Archive = {
  has(name: string): boolean;
  /** The entry's bytes, counted against what the archive may inflate to in all. */
  read(name: string): Promise<Buffer>;
  close(): void;
};

const megabytes = (bytes: number) => `${(bytes / 1048576).toFixed(bytes < 1048576 ? 2 : 0)} MB`;

export async function openArchive(buffer: Buffer, limits: ArchiveLimits = { entries: maxArchiveEntries, bytes: maxInflatedBytes }): Promise<Archive> {
  let zip;
  try {
    zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true, validateEntrySizes: true });
  } catch (error) {
    throw new ArchiveCorrupt((error as Error).message);
  }
  const entries = new Map<string, Entry>();
  try {
    // The count is the directory's own, read before any entry.
    if (zip.entryCount > limits.entries) throw new ArchiveTooLarge(`holds ${zip.entryCount.toLocaleString('en')} entries; an archive may hold at most ${limits.entries.toLocaleString('en')}`);
    let declared = 0;
    for await (const entry of zip.eachEntry()) {
      declared += entry.uncompressedSize;
      if (declared > limits.bytes) throw new ArchiveTooLarge(`would inflate to more than ${megabytes(limits.bytes)} (its directory declares ${megabytes(declared)} so far); an archive may inflate to at most ${megabytes(limits.bytes)}`);
      entries.set(entry.fileName, entry);
    }
  } catch (error) {
    zip.close();
    throw error instanceof ArchiveTooLarge ? error : new ArchiveCorrupt((error as Error).message);
  }

  let inflated = 0;
  return {
    has: (name) => entries.has(name),
    async read(name) {
      const entry = entries.get(name);
      if (!entry) throw new ArchiveCorrupt(`has no entry ${name}`);
      const stream = await zip.openReadStreamPromise(entry).catch((error: Error) => {
        throw new ArchiveCorrupt(error.message);
      });
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          inflated += chunk.length;
          if (inflated > limits.bytes) throw new ArchiveTooLarge(`inflates to more than ${megabytes(limits.bytes)}; an archive may inflate to at most ${megabytes(limits.bytes)}`);
          chunks.push(chunk);
        }
      } catch (error) {
        stream.destroy();
        if (error instanceof ArchiveTooLarge) throw error;
        // yauzl's own check: the entry inflates to more than its directory declares, and is stopped there.
        const reason = /^too many bytes/.test((error as Error).message) ? `inflates to more than the ${entry.uncompressedSize.toLocaleString('en')} bytes its directory declares` : (error as Error).message;
        throw new ArchiveCorrupt(`${name} ${reason}`);
      }
      return Buffer.concat(chunks);
    },
    close: () => zip.close(),
  };
}
