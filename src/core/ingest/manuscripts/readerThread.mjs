// A reader thread's entry: a worker thread starts without the tsx loader its parent registered, so it registers it
// before loading the TypeScript that does the work.
import { register } from 'tsx/esm/api';

register();
export default (await import('./readerThread.ts')).default;
