// describe/test/it for test files that need Neo4j: where Java 17+ or Maven is missing (test/support/globalSetup.ts says
// so in one line), every test in the file is skipped, so its hooks (which would start Neo4j) do not run either and the
// file is reported as skipped.
import { describe as vitestDescribe, inject, test as vitestTest } from 'vitest';

const absent = !inject('neo4j');

export const describe = vitestDescribe.skipIf(absent);
export const test = vitestTest.skipIf(absent);
export const it = test;
