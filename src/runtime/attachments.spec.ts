import type { FileLimits } from './files';
import { attachmentIssues, imageUrlProblem, withoutAttachmentData, type ImageLimits } from './attachments';

const LIMITS: ImageLimits = { types: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'], maxBytes: 64 };
const FILES: FileLimits = { types: ['application/pdf', 'text/plain'], maxBytes: 64 };
const url = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;

describe('imageUrlProblem', () => {
  it.each([
    ['image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0])],
    ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0])],
    ['image/gif', Buffer.from('GIF89a\0\0')],
    ['image/webp', Buffer.from('RIFF\0\0\0\0WEBPVP8 ')],
  ])('accepts %s whose bytes start as the type says', (type, bytes) => {
    expect(imageUrlProblem(url(type, bytes), LIMITS)).toBeUndefined();
    expect(imageUrlProblem(url(type.toUpperCase(), bytes), LIMITS)).toBeUndefined();
  });

  it('refuses bytes of another type than the label, and a type not listed', () => {
    expect(imageUrlProblem(url('image/png', Buffer.from('GIF89a')), LIMITS)).toBe(
      'the data is not a image/png image',
    );
    expect(
      imageUrlProblem(url('image/png', Buffer.from('GIF89a')), { ...LIMITS, types: ['image/gif'] }),
    ).toBe('image type "image/png" is not accepted (accepted: image/gif)');
  });

  it('counts decoded bytes against the limit, padding included', () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(56),
    ]);
    expect(imageUrlProblem(url('image/png', png), LIMITS)).toBeUndefined();
    expect(imageUrlProblem(url('image/png', Buffer.concat([png, Buffer.alloc(1)])), LIMITS)).toBe(
      'image is 65 bytes, over the limit of 64',
    );
  });

  it('refuses remote and malformed URLs', () => {
    expect(imageUrlProblem('https://example.com/a.png', LIMITS)).toMatch(/^only inline images/);
    expect(imageUrlProblem('data:image/png;base64', LIMITS)).toMatch(/^malformed data: URL/);
    expect(imageUrlProblem('data:image/png;base64,', LIMITS)).toBe(
      'malformed data: URL: the data is not base64',
    );
    expect(imageUrlProblem('data:image/png;base64,AB=C', LIMITS)).toBe(
      'malformed data: URL: the data is not base64',
    );
  });
});

describe('attachmentIssues', () => {
  it('locates each refused part; text parts and string content pass', () => {
    const issues = attachmentIssues(
      [
        { role: 'system', content: 'be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image_url', image_url: {} },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
            { type: 'file', file: { file_id: 'file-abc' } },
            { type: 'file', file: { file_data: 'data:text/html;base64,PGI+', filename: 'a.html' } },
            { type: 'file', file: { file_data: 'data:text/plain;base64,eA==', filename: 'a\nb' } },
          ],
        },
      ],
      { images: LIMITS, files: FILES },
      ['body', 'messages'],
    );
    expect(issues).toEqual([
      expect.objectContaining({
        loc: ['body', 'messages', 1, 'content', 1, 'image_url', 'url'],
        msg: 'image_url.url should be a string',
      }),
      expect.objectContaining({
        loc: ['body', 'messages', 1, 'content', 3, 'file', 'file_data'],
        msg: 'file.file_data should be a data: URL string',
      }),
      expect.objectContaining({
        loc: ['body', 'messages', 1, 'content', 4, 'file', 'file_data'],
        msg: expect.stringMatching(/^file type "text\/html" is not accepted/),
      }),
      expect.objectContaining({
        loc: ['body', 'messages', 1, 'content', 5, 'file', 'filename'],
        msg: 'the file name holds a control character',
      }),
    ]);
  });

  it("refuses a file to a workflow that reads none, and on a message that is not the user's", () => {
    const file = { type: 'file', file: { file_data: 'data:text/plain;base64,eA==' } };
    const messages = [
      { role: 'user' as const, content: [file] },
      { role: 'assistant' as const, content: [file] },
    ];
    expect(attachmentIssues(messages, { images: LIMITS }, ['m']).map((i) => i.msg)).toEqual([
      'this workflow reads no files: send text only',
      'this workflow reads no files: send text only',
    ]);
    expect(attachmentIssues(messages, { files: FILES }, ['m']).map((i) => i.msg)).toEqual([
      'files are accepted on user messages only',
    ]);
  });
});

describe('withoutAttachmentData', () => {
  it('keeps an image or file part as its type and size, and leaves other messages as they are', () => {
    const png = url('image/png', Buffer.alloc(30));
    const pdf = `data:application/pdf;base64,${Buffer.alloc(300).toString('base64')}`;
    const messages = [
      { role: 'system', content: 'x' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image_url', image_url: { url: png } },
          { type: 'file', file: { file_data: pdf, filename: 'r.pdf' } },
        ],
      },
    ];
    expect(withoutAttachmentData(messages)).toEqual([
      messages[0],
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,… (30 bytes)' } },
          {
            type: 'file',
            file: { file_data: 'data:application/pdf;base64,… (300 bytes)', filename: 'r.pdf' },
          },
        ],
      },
    ]);
  });
});
