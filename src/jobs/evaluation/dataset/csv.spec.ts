import { growthOver4x, LINEAR } from '../../../../test/utils/timing';
import { CsvError, parseCsv } from './csv';

const fields = (text: string) => parseCsv(text).map((r) => r.fields);

describe('parseCsv (RFC 4180)', () => {
  it('reads plain records with LF or CRLF line ends, with or without a final line end', () => {
    expect(fields('a,b\n1,2\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(fields('a,b\r\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('keeps commas, line breaks and doubled quotes inside quoted fields', () => {
    expect(fields('id,q\n1,"a, b"\n2,"say ""hi""\nthere"\n')).toEqual([
      ['id', 'q'],
      ['1', 'a, b'],
      ['2', 'say "hi"\nthere'],
    ]);
  });

  it('keeps empty fields, skips blank lines, and counts a line of "" as a record', () => {
    expect(fields('a,,c\n\n\n,\n""\n')).toEqual([['a', '', 'c'], ['', ''], ['']]);
  });

  it('numbers each record by the line it starts on, line breaks in quotes counted', () => {
    expect(parseCsv('h\n"x\ny"\n\nz\n').map((r) => r.line)).toEqual([1, 2, 5]);
  });

  it('ignores a byte-order mark', () => {
    expect(fields('\uFEFFid,q\n1,x\n')[0]).toEqual(['id', 'q']);
  });

  it.each([
    ['a quote inside an unquoted field', 'a,b"c\n', 1, 'a quote inside an unquoted field'],
    ['text after a closing quote', 'h\n"a"b,c\n', 2, 'text after a closing quote'],
    ['an unclosed quote', 'h\nok\n"abc\ndef', 3, 'never closed'],
  ])('refuses %s, naming the line', (_what, text, line, message) => {
    let error: unknown;
    try {
      parseCsv(text);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CsvError);
    expect((error as CsvError).line).toBe(line);
    expect((error as CsvError).message).toContain(message);
  });

  it('refuses a record with more fields than the limit', () => {
    expect(() => parseCsv(`${','.repeat(20)}\n`, 10)).toThrow('more than 10 fields');
  });

  it('reads a large hostile field in linear time', () => {
    const text = (n: number) => `a\n"${'""'.repeat(50_000 * n)}"\n${'x'.repeat(250_000 * n)}\n`;
    expect(parseCsv(text(4))[1].fields[0]).toHaveLength(200_000);
    expect(growthOver4x(text, parseCsv)).toBeLessThan(LINEAR);
  });
});
