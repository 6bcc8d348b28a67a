// Types of bin/entry.mjs, which stays plain JavaScript: it decides whether tsx is needed at all.
export function freshBuild(name: string, root?: URL): URL | undefined;
export function loadEntry(name: string, source: string): Promise<Record<string, unknown>>;
