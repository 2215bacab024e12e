/** A CSV file that breaks RFC 4180, with the line where it does. */
export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'CsvError';
  }
}

export interface CsvRecord {
  /** The line the record starts on (1-based). */
  line: number;
  fields: string[];
}

/**
 * Parses CSV text as RFC 4180 describes it: comma-separated fields, CRLF or LF line ends, fields in
 * double quotes may hold commas, line breaks and doubled quotes (`""`). Strict where the RFC is: a quote
 * inside an unquoted field, text after a closing quote, or an unclosed quote is an error naming its line.
 * Empty lines are skipped; a leading byte-order mark is ignored. One pass, linear in the text.
 */
export function parseCsv(text: string, maxFields = 1000): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  /** Whether a field of this record was quoted (a line of `""` is a record, a blank line is not). */
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endField = () => {
    fields.push(field);
    field = '';
    if (fields.length > maxFields) throw new CsvError(recordLine, `more than ${maxFields} fields`);
  };
  const endRecord = () => {
    endField();
    if (quoted || fields.length > 1 || fields[0] !== '') records.push({ line: recordLine, fields });
    fields = [];
    quoted = false;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      if (field !== '') throw new CsvError(line, 'a quote inside an unquoted field (quote the whole field)');
      quoted = true;
      const opened = line;
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q === -1) throw new CsvError(opened, 'a quoted field is never closed');
        const chunk = text.slice(i, q);
        for (let n = chunk.indexOf('\n'); n !== -1; n = chunk.indexOf('\n', n + 1)) line++;
        field += chunk;
        if (text[q + 1] !== '"') {
          i = q + 1;
          break;
        }
        field += '"';
        i = q + 2;
      }
      const after = text[i];
      if (after !== undefined && after !== ',' && after !== '\n' && after !== '\r') {
        throw new CsvError(line, 'text after a closing quote (a quote inside a quoted field is written "")');
      }
    } else if (c === ',') {
      endField();
      i++;
    } else if (c === '\n' || c === '\r') {
      endRecord();
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line++;
      recordLine = line;
    } else {
      const stop = nextSpecial(text, i);
      field += text.slice(i, stop);
      i = stop;
    }
  }
  if (quoted || field !== '' || fields.length > 0) endRecord();
  return records;
}

/** Where the next comma, quote or line end is (the end of the text if none). */
function nextSpecial(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44 || c === 34 || c === 10 || c === 13) return i;
  }
  return text.length;
}
