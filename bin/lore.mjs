#!/usr/bin/env node
// Entry point for `lore` / `npx lore`: runs the TypeScript sources through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../app/cli.ts');
