// describe/test/it for test files that need a browser: skipped where test/support/globalSetup.ts found none.
import { describe as vitestDescribe, inject, test as vitestTest } from 'vitest';

const absent = !inject('browser');

export const describe = vitestDescribe.skipIf(absent);
export const test = vitestTest.skipIf(absent);
export const it = test;
