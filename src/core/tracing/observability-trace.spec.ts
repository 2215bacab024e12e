import {
  newTraceId,
  observabilityTrace,
  otelTraceId,
  traceIdFromTraceparent,
  validWorkflowTraceId,
} from './observability-trace';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('traceIdFromTraceparent', () => {
  it("reads a version-00 traceparent's trace-id", () => {
    expect(traceIdFromTraceparent(`00-${TRACE_ID}-00f067aa0ba902b7-01`)).toBe(TRACE_ID);
    expect(traceIdFromTraceparent(`00-${TRACE_ID}-00f067aa0ba902b7-00`)).toBe(TRACE_ID);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['all-zero trace-id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['all-zero parent-id', `00-${TRACE_ID}-0000000000000000-01`],
    ['upper case', `00-${TRACE_ID.toUpperCase()}-00F067AA0BA902B7-01`],
    ['another version', `ff-${TRACE_ID}-00f067aa0ba902b7-01`],
    ['a trailing field', `00-${TRACE_ID}-00f067aa0ba902b7-01-extra`],
    ['a short parent-id', `00-${TRACE_ID}-00f067aa0ba902b-01`],
    ['not hex', `00-${TRACE_ID.replace('4', 'g')}-00f067aa0ba902b7-01`],
  ])('rejects one that is %s', (_name, value) => {
    expect(traceIdFromTraceparent(value)).toBeUndefined();
  });
});

describe('validWorkflowTraceId', () => {
  it('keeps a UUID or 32 hex digits, lowercased', () => {
    expect(validWorkflowTraceId('0198C3A1-7E2F-7B6C-9D4E-1A2B3C4D5E6F')).toBe(
      '0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f',
    );
    expect(validWorkflowTraceId(TRACE_ID.toUpperCase())).toBe(TRACE_ID);
  });

  it.each(['', 'trace-1', '1234', `${TRACE_ID}0`, '00000000-0000-0000-0000-000000000000', '0'.repeat(32)])(
    'rejects %j',
    (value) => expect(validWorkflowTraceId(value)).toBeUndefined(),
  );
});

describe('observabilityTrace', () => {
  it('takes the first value of a repeated header and trims it', () => {
    const trace = observabilityTrace({ 'workflow-trace-id': [` ${TRACE_ID} `, 'other'] });
    expect(trace.traceId).toBe(TRACE_ID);
  });

  it('uses the fallback (the active OpenTelemetry trace) before making a new id', () => {
    expect(observabilityTrace({}, () => 'a'.repeat(32)).traceId).toBe('a'.repeat(32));
    expect(observabilityTrace({}, () => undefined).traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('drops cross-workflow ids that are empty or too long to be ids', () => {
    const trace = observabilityTrace({ 'conversation-id': '  ', 'workflow-run-id': 'x'.repeat(257) });
    expect(trace).toEqual({ traceId: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown });
  });
});

describe('trace id forms', () => {
  it('new ids are 32 hex digits and differ', () => {
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newTraceId()).not.toBe(newTraceId());
  });

  it("a UUID's OpenTelemetry form drops the dashes", () => {
    expect(otelTraceId('0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f')).toBe('0198c3a17e2f7b6c9d4e1a2b3c4d5e6f');
    expect(otelTraceId(TRACE_ID)).toBe(TRACE_ID);
  });
});
