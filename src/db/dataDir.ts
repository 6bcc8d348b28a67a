// The embedded store's data directory is trusted with the store's secret, its owner's record and the gateway's admin
// socket: it must be the running user's own, and writable by no one else. A directory another user can write to would
// let them swap the record and have this user's commands (and their keys) sent to a gateway of theirs.
import { access, constants, mkdir, realpath, stat } from 'node:fs/promises';

export class DataDirError extends Error {}

/** Creates the data directory (0700) if it is missing and checks it; resolves to its real path. */
export async function prepareDataDir(dataDir: string): Promise<string> {
  let mode: number;
  let owner: number;
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const info = await stat(dataDir);
    if (!info.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    await access(dataDir, constants.R_OK | constants.W_OK | constants.X_OK);
    mode = info.mode & 0o777;
    owner = info.uid;
  } catch (error) {
    throw new DataDirError(`data directory ${dataDir} is not usable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && owner !== uid) {
    throw new DataDirError(`data directory ${dataDir} belongs to another user (uid ${owner}): run Lore as that user, or set LORE_DATA_DIR to a directory of your own`);
  }
  if (uid !== undefined && (mode & 0o022) !== 0) {
    throw new DataDirError(`data directory ${dataDir} is writable by other users (mode ${mode.toString(8)}): run chmod go-w ${dataDir}`);
  }
  return realpath(dataDir);
}
