// What another account sees while one account does something heavy: its requests' latencies, sampled by two clients.

export type Latencies = { requests: number; p50: number; p99: number; max: number };

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

export function latencies(ms: number[]): Latencies {
  const sorted = [...ms].sort((a, b) => a - b);
  return { requests: sorted.length, p50: Math.round(quantile(sorted, 0.5)), p99: Math.round(quantile(sorted, 0.99)), max: Math.round(sorted.at(-1)!) };
}

/**
 * GETs `paths` of `baseUrl` with `key`, two clients each sending one request after another 20 ms apart, until
 * `isDone()`; answers other than 200 go to `failures`.
 */
export async function sampleRequests(baseUrl: string, key: string, paths: string[], isDone: () => boolean, failures: string[]): Promise<Latencies> {
  const took: number[] = [];
  const client = async (offset: number) => {
    for (let i = offset; !isDone(); i++) {
      const started = performance.now();
      const res = await fetch(`${baseUrl}${paths[i % paths.length]}`, { headers: { Authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      took.push(performance.now() - started);
      if (res.status !== 200) failures.push(`${paths[i % paths.length]}: ${res.status}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await Promise.all([client(0), client(1)]);
  return latencies(took);
}
