import { gql } from '../api.ts';
import { ops, type ChapterHeading } from '../ops.ts';

/** Every chapter of the project in reading order (pages of 100), or those after `startingAfter`. */
export async function allChapters(projectId: string, startingAfter: string | null = null): Promise<ChapterHeading[]> {
  const chapters: ChapterHeading[] = [];
  let after: string | null = startingAfter;
  do {
    const { chapters: page }: { chapters: { data: ChapterHeading[]; hasMore: boolean; nextStartingAfter: string | null } } = await gql(ops.chapterList, { projectId, startingAfter: after });
    chapters.push(...page.data);
    after = page.hasMore ? page.nextStartingAfter : null;
  } while (after);
  return chapters;
}
