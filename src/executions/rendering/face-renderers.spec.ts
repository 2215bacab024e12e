import { FaceRenderers, type FaceRenderer } from './face-renderers';

const upper: FaceRenderer<string[], { prefix: string }> = {
  result: (raw, options) => `${options.prefix}${String(raw).toUpperCase()}`,
  stream: (lines, options, executionId) => (event) =>
    lines.push(`${options.prefix}${executionId}:${event.kind}`),
};

describe('FaceRenderers', () => {
  it('renders a record by the name of the face that started it, with the options it kept', () => {
    const renderers = new FaceRenderers();
    renderers.register('upper', upper);
    const found = renderers.get<string[], { prefix: string }>('upper')!;
    expect(found.result('done', { prefix: '> ' })).toBe('> DONE');
    const lines: string[] = [];
    found.stream(lines, { prefix: '# ' }, 'e1')({ kind: 'output', value: 'x', seq: 1 });
    expect(lines).toEqual(['# e1:output']);
  });

  it('knows no renderer for a face nobody registered', () => {
    expect(new FaceRenderers().get('nobody')).toBeUndefined();
  });

  it('refuses a second renderer under the same name', () => {
    const renderers = new FaceRenderers();
    renderers.register('upper', upper);
    expect(() => renderers.register('upper', upper)).toThrow(
      'A renderer for face "upper" is already registered',
    );
  });
});
