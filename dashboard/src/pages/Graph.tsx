import cytoscape from 'cytoscape';
import { useEffect, useRef, useState } from 'react';
import { gql } from '../api.ts';
import { entityTypes, ops, type GraphData } from '../ops.ts';
import { entityPath, Link, navigate } from '../router.tsx';
import { Heading, Problem, Status } from '../ui.tsx';
import { useData } from '../useData.ts';

// One colour per entity type, distinct from one another (the legend's swatches in app.css use the same).
export const typeColours: Record<string, string> = {
  character: '#1f5fa8',
  location: '#2e7d32',
  object: '#8a5a00',
  event: '#a3286b',
  rule: '#5b3fa0',
  promise: '#b3261e',
};

// Cytoscape adds a <style> element to the page unless an element with this id is there; a strict content security
// policy refuses inline styles, so app.css carries its one rule (.graph is position: relative) and this marks it present.
const cytoscapeStylesheetId = '__________cytoscape_stylesheet';

function markCytoscapeStylesheet() {
  if (document.getElementById(cytoscapeStylesheetId)) return;
  const marker = document.createElement('meta');
  marker.id = cytoscapeStylesheetId;
  document.head.append(marker);
}

export default function GraphPage({ projectId }: { projectId: string }) {
  const [root, setRoot] = useState(() => new URLSearchParams(location.search).get('root') ?? '');
  const [depth, setDepth] = useState(1);
  const graph = useData(() => gql<{ graph: GraphData }>(ops.relationshipGraph, { projectId, root: root || null, depth }).then((d) => d.graph), [projectId, root, depth]);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!graph.data || !box.current) return;
    markCytoscapeStylesheet();
    const cy = cytoscape({
      container: box.current,
      elements: [
        ...graph.data.nodes.map((n) => ({ data: { id: n.id, label: n.label, type: n.type, root: n.id === root ? 'yes' : 'no' } })),
        ...graph.data.edges.map((e, i) => ({ data: { id: `e${i}`, source: e.from, target: e.to, label: e.kind.replaceAll('_', ' ') } })),
      ],
      style: [
        {
          selector: 'node',
          style: {
            'background-color': (n: cytoscape.NodeSingular) => typeColours[n.data('type')] ?? '#444',
            label: 'data(label)',
            color: '#111',
            'font-size': 12,
            'text-valign': 'bottom',
            'text-margin-y': 4,
            'text-background-color': '#fff',
            'text-background-opacity': 0.85,
            'text-background-padding': '2px',
            width: 28,
            height: 28,
          },
        },
        { selector: 'node[root = "yes"]', style: { 'border-width': 4, 'border-color': '#111', width: 38, height: 38 } },
        {
          selector: 'edge',
          style: {
            width: 2,
            'line-color': '#767676',
            'target-arrow-color': '#767676',
            'target-arrow-shape': 'triangle',
            'curve-style': 'bezier',
            label: 'data(label)',
            'font-size': 10,
            color: '#333',
            'text-rotation': 'autorotate',
            'text-background-color': '#fff',
            'text-background-opacity': 0.85,
          },
        },
      ],
      layout: root ? { name: 'breadthfirst', roots: [root], circle: true, padding: 20 } : { name: 'cose', animate: false, padding: 20 },
    });
    cy.on('tap', 'node', (event) => navigate(entityPath(projectId, event.target.id())));
    return () => cy.destroy();
  }, [graph.data, root, projectId]);

  const nodes = graph.data?.nodes ?? [];
  const names = new Map(nodes.map((n) => [n.id, n.label]));
  return (
    <>
      <Heading>Graph</Heading>
      <div className="toolbar">
        <label htmlFor="graph-root">Centre on</label>
        <select id="graph-root" value={root} onChange={(e) => setRoot(e.target.value)}>
          <option value="">The most connected</option>
          {root && !names.has(root) && <option value={root}>{root}</option>}
          {nodes.map((n) => (
            <option key={n.id} value={n.id}>
              {n.label}
            </option>
          ))}
        </select>
        <label htmlFor="graph-depth">Depth</label>
        <select id="graph-depth" value={depth} onChange={(e) => setDepth(Number(e.target.value))}>
          {[1, 2, 3].map((d) => (
            <option key={d}>{d}</option>
          ))}
        </select>
      </div>
      <ul className="legend" aria-label="Colours">
        {entityTypes.map((t) => (
          <li key={t}>
            <span className={`swatch type-${t}`} aria-hidden="true" /> {t}
          </li>
        ))}
      </ul>
      <Problem error={graph.error} />
      {graph.data && <Status>{`${nodes.length} entities, ${graph.data.edges.length} relationships. Click one to open it.`}</Status>}
      <div ref={box} className="graph" role="img" aria-label="Relationship graph; the same entities are listed below as links" />
      <details>
        <summary>Entities and relationships as a list</summary>
        <ul>
          {(graph.data?.edges ?? []).map((e, i) => (
            <li key={i}>
              <Link to={entityPath(projectId, e.from)}>{names.get(e.from) ?? e.from}</Link> {e.kind.replaceAll('_', ' ')}{' '}
              <Link to={entityPath(projectId, e.to)}>{names.get(e.to) ?? e.to}</Link>
            </li>
          ))}
        </ul>
      </details>
    </>
  );
}
