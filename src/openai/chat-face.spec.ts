import { parseConfig } from '../config/config.loader';
import { ServerConfig } from '../config/server-config';
import { FaceRenderers } from '../executions/rendering/face-renderers';
import { builtinRegistry } from '../runtime/builtin-functions';
import { CHAT_FACE, ChatFace, type ChatFaceRenderOptions } from './chat-face';

const options: ChatFaceRenderOptions = {
  model: 'm',
  includeUsage: false,
  prompt: 'hello',
  completion: { id: 'chatcmpl-1', created: 1_700_000_000 },
  errors: 'event',
  done: false,
  interactive: true,
};

function chatRenderer() {
  const renderers = new FaceRenderers();
  new ChatFace(
    renderers,
    new ServerConfig(parseConfig('workflow: { _type: echo }\n', 'test.yml', builtinRegistry())),
  ).onModuleInit();
  return renderers.get<never, ChatFaceRenderOptions>(CHAT_FACE)!;
}

describe('ChatFace', () => {
  it('renders a finished execution as the same chat completion on every poll', () => {
    const renderer = chatRenderer();
    const first = renderer.result('hi there', options);
    expect(first).toMatchObject({
      id: 'chatcmpl-1',
      created: 1_700_000_000,
      model: 'm',
      choices: [{ message: { content: 'hi there' } }],
    });
    expect(renderer.result('hi there', options)).toEqual(first);
  });
});
