// What the manuscript tests read back through the public surfaces: a project as exported (GraphQL), an entity's
// mentions and recall (REST).
import { expect } from 'vitest';
import type { TestGateway } from '../support/gateway.ts';

export type ExportedChapter = { id: string; title: string; ordinal: number; text: string };

export async function exported(gw: TestGateway, key: string, projectId: string): Promise<{ chapters: ExportedChapter[]; entities: any[]; relationships: any[] }> {
  const res = await gw.graphql('query ($p: ID!) { exportProject(projectId: $p) }', { p: projectId }, key);
  expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  const bundle = res.data.exportProject;
  return { chapters: bundle.chapters ?? [], entities: bundle.entities ?? [], relationships: bundle.relationships ?? [] };
}

export async function recallOne(gw: TestGateway, key: string, projectId: string, name: string) {
  const res = await gw.request(`/projects/${projectId}/recall?q=${encodeURIComponent(name)}`, { key });
  expect(res.status, res.text).toBe(200);
  const found = res.body.entities.find((e: any) => e.canonicalName === name);
  expect(found, `${name} in ${JSON.stringify(res.body.entities.map((e: any) => e.canonicalName))}`).toBeTruthy();
  return found;
}

export async function mentionsOf(gw: TestGateway, key: string, projectId: string, entityId: string): Promise<{ id: string; chapter: string; line: number; snippet: string }[]> {
  const res = await gw.request(`/projects/${projectId}/recall/${entityId}/mentions?limit=100`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}
