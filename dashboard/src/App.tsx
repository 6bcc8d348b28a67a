import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { apiKey, forgetKey, gql } from './api.ts';
import { ops, type Project } from './ops.ts';
import { Link, navigate, projectPath, usePath } from './router.tsx';
import { ChaptersPage } from './pages/Chapters.tsx';
import { ChapterPage } from './pages/Chapter.tsx';
import { CodexPage } from './pages/Codex.tsx';
import { ConflictsPage } from './pages/Conflicts.tsx';
import { EntityPage } from './pages/Entity.tsx';
import { ProjectsPage } from './pages/Projects.tsx';
import { ReviewPage } from './pages/Review.tsx';
import { SignInPage } from './pages/SignIn.tsx';
import { UsagePage } from './pages/Usage.tsx';

// Cytoscape is most of the app's weight: loaded when the graph is first opened.
const GraphPage = lazy(() => import('./pages/Graph.tsx'));

type Route = { page: string; projectId?: string; id?: string };

function route(path: string): Route {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'usage') return { page: 'usage' };
  if (parts[0] !== 'projects' || !parts[1]) return { page: 'projects' };
  const [, projectId, page = 'codex', id] = parts;
  return { page, projectId, id };
}

export function App() {
  const path = usePath();
  const [signedIn, setSignedIn] = useState(Boolean(apiKey()));
  const main = useRef<HTMLElement>(null);
  const { page, projectId, id } = route(path);
  const projectName = useProjectName(signedIn ? projectId : undefined);

  // A new page moves focus to its content, so keyboard and screen reader users start there.
  useEffect(() => {
    main.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [path]);

  if (!signedIn) return <SignInPage onSignedIn={() => setSignedIn(true)} />;
  const signOut = () => {
    forgetKey();
    setSignedIn(false);
    navigate('/');
  };
  const current = (name: string) => (page === name ? 'page' : undefined);

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Lore</span>
        {projectId && projectName && (
          <Link to={projectPath(projectId)} className="project-name" aria-label={`Project: ${projectName}`}>
            {projectName}
          </Link>
        )}
        <nav aria-label="Main">
          <Link to="/" aria-current={current('projects')}>
            Projects
          </Link>
          {projectId && (
            <>
              <Link to={projectPath(projectId, 'codex')} aria-current={page === 'codex' || page === 'entities' ? 'page' : undefined}>
                Codex
              </Link>
              <Link to={projectPath(projectId, 'review')} aria-current={current('review')}>
                Review
              </Link>
              <Link to={projectPath(projectId, 'conflicts')} aria-current={current('conflicts')}>
                Conflicts
              </Link>
              <Link to={projectPath(projectId, 'chapters')} aria-current={current('chapters')}>
                Chapters
              </Link>
              <Link to={projectPath(projectId, 'graph')} aria-current={current('graph')}>
                Graph
              </Link>
            </>
          )}
          <Link to="/usage" aria-current={current('usage')}>
            Usage
          </Link>
        </nav>
        <button type="button" className="quiet" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main}>
        <Suspense fallback={<p>Loading…</p>}>{pageFor(page, projectId, id, signOut)}</Suspense>
      </main>
    </>
  );
}

/**
 * The project's name for the header: from the projects list, names only (the counts cost a count over every entity,
 * review and conflict); none for a key that cannot list projects.
 */
function useProjectName(projectId: string | undefined): string | undefined {
  const [names, setNames] = useState<Map<string, string>>(new Map());
  const asked = useRef(new Set<string>());
  useEffect(() => {
    if (!projectId || names.has(projectId) || asked.current.has(projectId)) return;
    asked.current.add(projectId);
    gql<{ projects: Pick<Project, 'id' | 'name'>[] }>(ops.projectNames).then(
      (d) => setNames(new Map(d.projects.map((p) => [p.id, p.name]))),
      () => undefined,
    );
  }, [projectId, names]);
  return projectId ? names.get(projectId) : undefined;
}

function pageFor(page: string, projectId: string | undefined, id: string | undefined, signOut: () => void) {
  if (page === 'usage') return <UsagePage />;
  if (!projectId) return <ProjectsPage onSignedOut={signOut} />;
  switch (page) {
    case 'entities':
      return id ? <EntityPage key={id} projectId={projectId} entityId={id} /> : <CodexPage projectId={projectId} />;
    case 'review':
      return <ReviewPage projectId={projectId} />;
    case 'conflicts':
      return <ConflictsPage projectId={projectId} />;
    case 'chapters':
      return id ? <ChapterPage key={id} projectId={projectId} chapterId={id} /> : <ChaptersPage projectId={projectId} />;
    case 'graph':
      return <GraphPage projectId={projectId} />;
    default:
      return <CodexPage projectId={projectId} />;
  }
}
