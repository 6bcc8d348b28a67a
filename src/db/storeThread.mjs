// A worker thread starts without its owner's TypeScript loader: this registers tsx there, then runs storeThread.ts.
import { register } from 'tsx/esm/api';

register();
await import('./storeThread.ts');
