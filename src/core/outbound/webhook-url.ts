import ipaddr from 'ipaddr.js';

/** Whether `host` is listed in `allowed` (names, `*.example.com` for subdomains, IP addresses). */
export function hostListed(host: string, allowed: string[]): boolean {
  const name = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  return allowed.some((entry) => {
    const want = entry.trim().toLowerCase();
    if (want.startsWith('*.')) return name.endsWith(want.slice(1));
    if (ipaddr.isValid(want) && ipaddr.isValid(name)) {
      return ipaddr.process(want).toString() === ipaddr.process(name).toString();
    }
    return want === name;
  });
}

/**
 * Why a webhook URL a client chose (a job's `webhook_url`, an A2A push-notification config's `url`)
 * is refused, or null when it may be used: it must be http(s), carry no credentials, and name a host
 * the operator listed in `general.async.webhook_allow_hosts`. Being listed does not let it reach a
 * private address: the delivery still goes out under `general.outbound` (checked at connect time).
 */
export function webhookUrlProblem(url: string, allowHosts: string[], field = 'webhook_url'): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${field} is not a URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `${field} must be http(s)`;
  if (parsed.username || parsed.password) return `${field} may not carry credentials`;
  if (!hostListed(parsed.hostname, allowHosts)) {
    return `${field} host ${parsed.hostname} is not in general.async.webhook_allow_hosts`;
  }
  return null;
}
