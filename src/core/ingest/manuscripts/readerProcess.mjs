// A reader process (readerPool.ts starts it): reads the manuscripts it is sent, one at a time, and answers each. It
// starts without the tsx loader its parent registered, so it registers it before loading the TypeScript that reads.
import { register } from 'tsx/esm/api';

register();
const { readTask } = await import('./readerTask.ts');

process.on('message', async (task) => {
  let outcome;
  try {
    outcome = await readTask(task);
  } catch (error) {
    outcome = { ok: false, unexpected: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  process.send(outcome);
});
// The parent gone (even by kill -9), there is no one to answer.
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
