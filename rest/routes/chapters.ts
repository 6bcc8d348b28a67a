// Chapters (extension): list them in reading order, read one, put one (create or replace; only its own mentions are
// recorded again) and delete one.
import { wordsPerCall } from '../../src/core/conflicts/kinds.ts';
import { linksTo, type RouteDef } from '../route.ts';
import { projectPath } from '../schemas.ts';
import { Chapter, ChapterCheckResult, ChapterList, chapterPath, chaptersQueryParams, DeletedChapter, putChapterBody, PutChapterResult } from '../schemas/chapters.ts';

export const listChapters: RouteDef = {
  method: 'get',
  path: '/projects/{id}/chapters',
  operationId: 'listChapters',
  summary: 'List the chapters',
  description: "Extension. The project's chapters in reading order (ordinal), without their text: the ids that as_of, from and until name.",
  scope: 'recall',
  cost: 1,
  params: projectPath,
  query: chaptersQueryParams,
  success: { status: 200, schema: ChapterList, description: 'a page of chapters' },
  errors: [400, 402, 404],
  links: linksTo(['readChapter'], { id: '$request.path.id', chapterId: '$response.body#/data/0/id' }),
  operation: 'Chapters',
  variables: ({ params, query }) => ({ projectId: params.id, limit: query.limit, startingAfter: query.starting_after }),
  respond: (data) => data.page,
};

export const readChapter: RouteDef = {
  method: 'get',
  path: '/projects/{id}/chapters/{chapterId}',
  operationId: 'readChapter',
  summary: 'Read a chapter',
  description: 'Extension. One chapter with its text.',
  scope: 'recall',
  cost: 1,
  params: chapterPath,
  success: { status: 200, schema: Chapter, description: 'the chapter' },
  errors: [400, 402, 404],
  operation: 'ReadChapter',
  errorPaths: { chapterId: 'path.chapterId' },
  variables: ({ params }) => ({ projectId: params.id, chapterId: params.chapterId }),
  respond: (data) => data.chapter,
};

export const checkChapter: RouteDef = {
  method: 'post',
  path: '/projects/{id}/chapters/{chapterId}/check',
  operationId: 'checkChapter',
  summary: 'Check a stored chapter in place',
  description: `Extension. The deterministic core (no LLM, no BYOK headers) reads the stored chapter in stretches that end where a state change anchored inside it begins, each as of its own line, so a character who dies at line 212 is dead from that line on only. Each hit says the line and the character offsets of the words it quotes, and is stored as a pending conflict. Costs one call per ${wordsPerCall.toLocaleString('en')} words started; asking again about the same text and canon version answers from the kept result (cached: true) for one call.`,
  scope: 'check',
  cost: 1,
  params: chapterPath,
  bodyOptional: true,
  success: { status: 200, schema: ChapterCheckResult, description: 'the hits, with their positions in the chapter' },
  errors: [400, 402, 404],
  operation: 'CheckChapter',
  errorPaths: { chapter: 'path.chapterId' },
  variables: ({ params }) => ({ projectId: params.id, chapter: params.chapterId }),
  respond: (data) => {
    const { anchorsLost, ...check } = data.check as Record<string, unknown>;
    return { ...check, anchors_lost: anchorsLost };
  },
};

export const putChapter: RouteDef = {
  method: 'put',
  path: '/projects/{id}/chapters/{chapterId}',
  operationId: 'putChapter',
  summary: 'Create or replace a chapter',
  description:
    "Extension. Creates the chapter (201) or replaces it (200). Its mentions are recorded again from its text; other chapters' mentions are untouched. An ordinal another chapter of the project holds is 409 already_exists (each place in the reading order holds one chapter). A new ordinal that would end a fact's or state value's span before it begins is 409 in_use. A PUT is idempotent by itself: sending it again changes nothing.",
  scope: 'remember',
  cost: 1,
  params: chapterPath,
  body: putChapterBody,
  success: { status: 200, schema: PutChapterResult, description: 'the chapter replaced' },
  created: { description: 'the chapter created', when: (data) => (data.result as { created: boolean }).created },
  errors: [400, 402, 404, 409, 413, 415],
  links: linksTo(['deleteChapter'], { id: '$request.path.id', chapterId: '$request.path.chapterId' }),
  operation: 'PutChapter',
  errorPaths: { input: 'body', chapterId: 'path.chapterId' },
  variables: ({ params, body }) => ({ projectId: params.id, chapterId: params.chapterId, input: { title: body.title, ordinal: body.ordinal, text: body.text } }),
  respond: (data) => {
    const { mentionsRecorded, ...result } = data.result as Record<string, unknown>;
    return { ...result, mentions_recorded: mentionsRecorded };
  },
};

export const deleteChapter: RouteDef = {
  method: 'delete',
  path: '/projects/{id}/chapters/{chapterId}',
  operationId: 'deleteChapter',
  summary: 'Delete a chapter',
  description:
    'Extension. Deletes the chapter with its mentions and beats. Refused with 409 in_use (errors list them) while live facts or state values hold from or until it; retired facts keep their text and lose the reference.',
  scope: 'remember',
  cost: 1,
  params: chapterPath,
  success: { status: 200, schema: DeletedChapter, description: 'the chapter is gone' },
  errors: [400, 402, 404, 409],
  operation: 'DeleteChapter',
  errorPaths: { chapterId: 'path.chapterId' },
  variables: ({ params }) => ({ projectId: params.id, chapterId: params.chapterId }),
  respond: (data) => data.result,
};
