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

/** A piece of a repr already written (a bracket, a separator, a key). */
class Written {
  constructor(readonly text: string) {}
}

function scalarRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value !== 'string') return String(value);
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

/**
 * A value as Python's `repr` writes it (what NAT's prompts show of a message's `model_dump()`, of a
 * plan's input, of a tool's output). Walks with a stack of its own, not by recursion: a value nested
 * deeper than the call stack (a model's or a tool's JSON) is written like any other.
 */
export function pythonRepr(value: unknown): string {
  const out: string[] = [];
  const todo: unknown[] = [value];
  while (todo.length) {
    const item = todo.pop();
    if (item instanceof Written) out.push(item.text);
    else if (Array.isArray(item)) {
      todo.push(new Written(']'));
      for (let i = item.length - 1; i >= 0; i--) todo.push(item[i], ...(i ? [new Written(', ')] : []));
      todo.push(new Written('['));
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      todo.push(new Written('}'));
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, v] = entries[i];
        todo.push(v, new Written(`${scalarRepr(key)}: `), ...(i ? [new Written(', ')] : []));
      }
      todo.push(new Written('{'));
    } else out.push(scalarRepr(item));
  }
  return out.join('');
}
