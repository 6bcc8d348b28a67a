#!/usr/bin/env node
// Entry point for `lore` / `lore-canon`: the built CLI when it is fresh, else the TypeScript sources (bin/entry.mjs).
import { loadEntry } from './entry.mjs';

await loadEntry('lore', 'app/cli.ts');
