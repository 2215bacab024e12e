/** What an inline attachment may be: its accepted media types and its size in bytes (decoded). */
export interface InlineLimits {
  types: readonly string[];
  maxBytes: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A base64 `data:` URL holding an image or a file, checked against `limits`: its media type and its
 * base64 data, or why it is refused (a remote URL, malformed, a type not accepted, too big). The
 * server fetches no URL a client names (SSRF), nor hands one to the model to fetch.
 */
export function inlineData(
  url: string,
  limits: InlineLimits,
  kind: { noun: 'image' | 'file'; example: string },
): { type: string; data: string } | { problem: string } {
  const { noun, example } = kind;
  if (!url.toLowerCase().startsWith('data:')) {
    return {
      problem: `only inline ${noun}s are accepted: send the ${noun} as a data: URL (data:${example};base64,...)`,
    };
  }
  const comma = url.indexOf(',');
  const header = comma < 0 ? [] : url.slice(5, comma).toLowerCase().split(';');
  if (comma < 0 || header[header.length - 1] !== 'base64') {
    return { problem: `malformed data: URL: expected data:<${noun} type>;base64,<data>` };
  }
  const type = header[0];
  if (!limits.types.includes(type)) {
    const accepted = limits.types.join(', ');
    return {
      problem: `${noun} type ${JSON.stringify(type.slice(0, 100))} is not accepted (accepted: ${accepted})`,
    };
  }
  const data = url.slice(comma + 1);
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  const bytes = (data.length / 4) * 3 - padding;
  if (bytes > limits.maxBytes) {
    return { problem: `${noun} is ${Math.ceil(bytes)} bytes, over the limit of ${limits.maxBytes}` };
  }
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) {
    return { problem: 'malformed data: URL: the data is not base64' };
  }
  return { type, data };
}
