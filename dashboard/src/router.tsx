// A small history router: the gateway answers index.html for any client path, so links are plain paths.
import { useEffect, useState, type AnchorHTMLAttributes } from 'react';

export function navigate(to: string) {
  history.pushState(null, '', to);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const changed = () => setPath(location.pathname);
    addEventListener('popstate', changed);
    return () => removeEventListener('popstate', changed);
  }, []);
  return path;
}

export function Link({ to, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  return (
    <a
      href={to}
      {...rest}
      onClick={(event) => {
        rest.onClick?.(event);
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    />
  );
}

export const projectPath = (projectId: string, page = '') => `/projects/${encodeURIComponent(projectId)}${page && `/${page}`}`;
export const entityPath = (projectId: string, entityId: string) => projectPath(projectId, `entities/${encodeURIComponent(entityId)}`);
