import { useEffect, useState, type FormEvent } from 'react';
import { gql, signedOutCodes, ApiError } from '../api.ts';
import { ops, type Project } from '../ops.ts';
import { Link, navigate, projectPath } from '../router.tsx';
import { Heading, Problem, when } from '../ui.tsx';
import { useData } from '../useData.ts';

export function ProjectsPage({ onSignedOut }: { onSignedOut: () => void }) {
  const projects = useData(() => gql<{ projects: Project[] }>(ops.projects).then((d) => d.projects), []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [createError, setCreateError] = useState<unknown>();

  useEffect(() => {
    if (projects.error instanceof ApiError && signedOutCodes.has(projects.error.code ?? '')) onSignedOut();
  }, [projects.error, onSignedOut]);

  async function create(event: FormEvent) {
    event.preventDefault();
    setCreateError(undefined);
    try {
      const { createProject } = await gql<{ createProject: { id: string } }>(ops.createProject, { input: { name, description } });
      navigate(projectPath(createProject.id));
    } catch (error) {
      setCreateError(error);
    }
  }

  return (
    <>
      <Heading>Projects</Heading>
      <Problem error={projects.error} />
      {projects.data && projects.data.length === 0 && <p>No projects yet: create one below, or import a manuscript with <code>lore import</code>.</p>}
      {projects.data && projects.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Entities</th>
              <th scope="col">Pending review</th>
              <th scope="col">Open conflicts</th>
              <th scope="col">Last updated</th>
            </tr>
          </thead>
          <tbody>
            {projects.data.map((p) => (
              <tr key={p.id}>
                <td>
                  <Link to={projectPath(p.id)}>{p.name}</Link>
                  {p.description && <div className="muted">{p.description}</div>}
                </td>
                <td className="num">{p.entityCount}</td>
                <td className="num">{p.pendingReviewCount > 0 ? <Link to={projectPath(p.id, 'review')} aria-label={`${p.pendingReviewCount} pending review in ${p.name}`}>{p.pendingReviewCount}</Link> : 0}</td>
                <td className="num">{p.conflictCount > 0 ? <Link to={projectPath(p.id, 'conflicts')} aria-label={`${p.conflictCount} open conflicts in ${p.name}`}>{p.conflictCount}</Link> : 0}</td>
                <td>{when(p.lastUpdated)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <section aria-labelledby="new-project">
        <h2 id="new-project">New project</h2>
        <form onSubmit={create} className="stack">
          <label htmlFor="project-name">Name</label>
          <input id="project-name" required maxLength={80} value={name} onChange={(e) => setName(e.target.value)} />
          <label htmlFor="project-description">Description</label>
          <input id="project-description" value={description} onChange={(e) => setDescription(e.target.value)} />
          <div>
            <button type="submit">Create project</button>
          </div>
        </form>
        <Problem error={createError} />
      </section>
    </>
  );
}
