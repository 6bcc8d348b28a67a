// GET /projects/{id}/graph: subsets with and without a root, depth, and the errors, against a real gateway and database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphSubset } from '../../rest/schemas.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { expectProblem } from '../support/problem.ts';

let gw: TestGateway;
let key: string;
let projectId: string;
let otherProjectEntity: string;
const ids = new Map<string, string>();

// mara - keth - gull-point - lighthouse (a chain), mara -> heron, and the rule stands alone.
const bundle = {
  project: { name: 'Graph book' },
  entities: [
    { key: 'mara', type: 'character', name: 'Mara Voss' },
    { key: 'keth', type: 'character', name: 'Keth Voss' },
    { key: 'heron', type: 'object', name: 'the Heron' },
    { key: 'gull-point', type: 'location', name: 'Gull Point' },
    { key: 'lighthouse', type: 'location', name: 'The lighthouse' },
    { key: 'no-magic', type: 'rule', name: 'No magic at sea' },
  ],
  relationships: [
    { from: 'mara', to: 'keth', kind: 'sibling_of', weight: 0.9 },
    { from: 'mara', to: 'heron', kind: 'captains' },
    { from: 'keth', to: 'gull-point', kind: 'died_at', weight: 2.5 },
    { from: 'lighthouse', to: 'gull-point', kind: 'stands_on' },
  ],
};

async function graph(query = '', project = projectId) {
  const res = await gw.request(`/projects/${project}/graph${query}`, { key });
  return res;
}

const nodeKeys = (body: any) => body.nodes.map((n: any) => [...ids].find(([, id]) => id === n.id)?.[0]).sort();
const edgeKinds = (body: any) => body.edges.map((e: any) => e.kind).sort();

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.createKey('studio'));
  projectId = (await importBundle(gw, key, bundle)).projectId;
  const rows = await gw.gateway.runtime.services.prisma.entity.findMany({ where: { projectId }, select: { id: true, key: true } });
  for (const row of rows) ids.set(row.key, row.id);
  const other = await importBundle(gw, key, { project: { name: 'Other graph book' }, entities: [{ key: 'mara', type: 'character', name: 'Mara Voss' }] });
  otherProjectEntity = (await gw.request(`/projects/${other.projectId}/recall`, { key })).body.entities[0].id;
});
afterAll(() => gw?.close());

describe('GET /projects/{id}/graph', () => {
  it('when no root is given, then every node and edge of the small project, nodes as {id,label,type}, edges as {from,to,kind,weight}', async () => {
    const res = await graph();
    expect(res.status).toBe(200);
    const body = GraphSubset.parse(res.body);
    expect(nodeKeys(body)).toEqual(['gull-point', 'heron', 'keth', 'lighthouse', 'mara', 'no-magic']);
    for (const node of res.body.nodes) expect(Object.keys(node).sort()).toEqual(['id', 'label', 'type']);
    for (const edge of res.body.edges) expect(Object.keys(edge).sort()).toEqual(['from', 'kind', 'to', 'weight']);
    expect(body.nodes.find((n) => n.id === ids.get('heron'))).toEqual({ id: ids.get('heron'), label: 'the Heron', type: 'object' });
    expect(body.edges).toHaveLength(4);
    expect(body.edges).toContainEqual({ from: ids.get('mara'), to: ids.get('keth'), kind: 'sibling_of', weight: 0.9 });
    expect(body.edges).toContainEqual({ from: ids.get('keth'), to: ids.get('gull-point'), kind: 'died_at', weight: 2.5 });
    // Weight defaults to 1 when the bundle gives none.
    expect(body.edges).toContainEqual({ from: ids.get('mara'), to: ids.get('heron'), kind: 'captains', weight: 1 });
    // The most connected nodes come first.
    expect(new Set(body.nodes.slice(0, 3).map((n) => n.id))).toEqual(new Set([ids.get('mara'), ids.get('keth'), ids.get('gull-point')]));
  });

  it('when a root is given without depth, then depth 1: the root, its neighbours either way, and the edges among them', async () => {
    const res = await graph(`?root=${ids.get('mara')}`);
    expect(res.status).toBe(200);
    const body = GraphSubset.parse(res.body);
    expect(body.nodes[0].id).toBe(ids.get('mara'));
    expect(nodeKeys(body)).toEqual(['heron', 'keth', 'mara']);
    expect(edgeKinds(body)).toEqual(['captains', 'sibling_of']);
    // Edges are followed against their direction too.
    const fromGull = GraphSubset.parse((await graph(`?root=${ids.get('gull-point')}`)).body);
    expect(nodeKeys(fromGull)).toEqual(['gull-point', 'keth', 'lighthouse']);
    expect(edgeKinds(fromGull)).toEqual(['died_at', 'stands_on']);
    // A root without relationships is a subset of one node.
    expect((await graph(`?root=${ids.get('no-magic')}`)).body).toEqual({
      nodes: [{ id: ids.get('no-magic'), label: 'No magic at sea', type: 'rule' }],
      edges: [],
    });
  });

  it('when depth is 2 or 3, then nodes further away come in, nearest first', async () => {
    const two = GraphSubset.parse((await graph(`?root=${ids.get('mara')}&depth=2`)).body);
    expect(nodeKeys(two)).toEqual(['gull-point', 'heron', 'keth', 'mara']);
    expect(edgeKinds(two)).toEqual(['captains', 'died_at', 'sibling_of']);
    expect(two.nodes.at(-1)?.id).toBe(ids.get('gull-point'));
    const three = GraphSubset.parse((await graph(`?root=${ids.get('mara')}&depth=3`)).body);
    expect(nodeKeys(three)).toEqual(['gull-point', 'heron', 'keth', 'lighthouse', 'mara']);
    expect(three.edges).toHaveLength(4);
  });

  it('when depth is 0, 4 or not an integer, then 400 validation_error on query.depth', async () => {
    for (const depth of ['0', '4', 'x', '1.5']) {
      const problem = expectProblem(await graph(`?root=${ids.get('mara')}&depth=${depth}`), 400, 'validation_error');
      expect(problem.errors?.map((e) => e.path)).toEqual(['query.depth']);
    }
  });

  it('when the root is not an entity of the project, then 404 not_found', async () => {
    expectProblem(await graph(`?root=${otherProjectEntity}`), 404, 'not_found');
    const problem = expectProblem(await graph('?root=ent_nosuchentity'), 404, 'not_found');
    expect(problem.detail).toContain('ent_nosuchentity');
    expectProblem(await graph('?root=not%20an%20id'), 400, 'validation_error');
  });

  it('when the project is unknown, then 404 not_found', async () => {
    expectProblem(await graph('', 'prj_nosuchproject'), 404, 'not_found');
  });

  it('when the project has more than 50 entities, then without root the 50 most connected and the edges among them', async () => {
    const leaves = Array.from({ length: 55 }, (_, i) => ({ key: `leaf-${i}`, type: 'character', name: `Sailor ${i}` }));
    const loners = Array.from({ length: 5 }, (_, i) => ({ key: `loner-${i}`, type: 'event', name: `Storm ${i}` }));
    const big = await importBundle(gw, key, {
      project: { name: 'Big graph book' },
      entities: [{ key: 'hub', type: 'location', name: 'The harbour' }, ...leaves, ...loners],
      relationships: leaves.map((l) => ({ from: l.key, to: 'hub', kind: 'moored_at' })),
    });
    const body = GraphSubset.parse((await graph('', big.projectId)).body);
    expect(body.nodes).toHaveLength(50);
    expect(body.nodes[0]).toMatchObject({ label: 'The harbour', type: 'location' });
    expect(body.nodes.some((n) => n.label.startsWith('Storm'))).toBe(false);
    expect(body.edges).toHaveLength(49);
  });

  it('when the project has no entities, then an empty subset', async () => {
    const created = await gw.request('/projects', { method: 'POST', key, json: { name: 'Empty book' } });
    expect(created.status).toBe(201);
    expect((await graph('', created.body.id)).body).toEqual({ nodes: [], edges: [] });
  });
});
