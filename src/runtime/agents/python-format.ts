/**
 * Python's f-string style templates as NAT's prompts use them (`{name}`, `{{` for a brace): each known
 * name is filled, braces around anything else are kept as written. One pass over the text, no regex.
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if ((c === '{' || c === '}') && template[i + 1] === c) {
      out += c;
      i++;
      continue;
    }
    if (c === '{') {
      const end = template.indexOf('}', i + 1);
      const name = end === -1 ? '' : template.slice(i + 1, end);
      if (Object.hasOwn(values, name)) {
        out += values[name];
        i = end;
        continue;
      }
    }
    out += c;
  }
  return out;
}

/** The names a template uses that `known` does not list (a typo in a prompt NAT would refuse). */
export function unknownNames(template: string, known: string[]): string[] {
  const names: string[] = [];
  for (let i = 0; i < template.length; i++) {
    if ((template[i] === '{' || template[i] === '}') && template[i + 1] === template[i]) {
      i++;
      continue;
    }
    if (template[i] !== '{') continue;
    const end = template.indexOf('}', i + 1);
    if (end === -1) break;
    const name = template.slice(i + 1, end);
    if (/^[A-Za-z_]\w*$/.test(name) && !known.includes(name)) names.push(name);
    i = end;
  }
  return names;
}

/** A string as Python's `repr` writes it (what NAT's prompts show of a message's `model_dump()`). */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    let out = quote;
    for (const ch of value) {
      if (ch === '\\') out += '\\\\';
      else if (ch === quote) out += `\\${quote}`;
      else if (ch === '\n') out += '\\n';
      else if (ch === '\r') out += '\\r';
      else if (ch === '\t') out += '\\t';
      else out += ch;
    }
    return out + quote;
  }
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`)
      .join(', ')}}`;
  return String(value);
}
