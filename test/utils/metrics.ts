import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One sample of a test server's /metrics (0 when absent): the labels given must all match. */
export async function metricValue(
  baseUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const family = parsePrometheusTextFormat(text).find((f) => f.name === name);
  const sample = family?.metrics.find((m) =>
    Object.entries(labels).every(([key, value]) => m.labels?.[key] === value),
  );
  return Number(sample?.value ?? 0);
}

/** How many requests to `route` the server saw end with `status` (499: the client left first). */
export function requestsEnded(baseUrl: string, route: string, status: number): Promise<number> {
  return metricValue(baseUrl, 'interlude_http_requests_total', { route, status: String(status) });
}
