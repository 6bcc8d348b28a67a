// The part of autocannon 8's API the bench uses (the package ships no types).
declare module 'autocannon' {
  type Options = {
    url: string;
    connections?: number;
    duration?: number;
    /** stop after this many requests instead of after `duration` */
    amount?: number;
    headers?: Record<string, string>;
    requests?: Request[];
  };
  type Request = {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
    /** called before each request is sent: the request to send instead */
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    /** called with each answer and the context its setupRequest was given */
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  };
  type Histogram = { average: number; p50: number; p90: number; p99: number; max: number };
  type Result = {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    latency: Histogram;
    requests: Histogram & { sent: number };
    statusCodeStats: Record<string, { count: number }>;
  };
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
