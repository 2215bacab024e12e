import { Module, type DynamicModule, type Type } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import type { Routes } from '../core/http/route-paths';
import { ExecutionsModule } from '../executions/executions.module';
import { HttpExecutionsModule } from '../http-executions/http-executions.module';
import { ChatFace } from './chat-face';
import { createChatController } from './chat.controller';
import { ChatService } from './chat.service';
import { createCompletionsController } from './completions.controller';

/** The chat API (`/v1/chat*`, `/chat*`) and OpenAI's `/v1/chat/completions`. */
@Module({})
export class OpenAiModule {
  static forRoot(config: AppConfig, routes: Routes): DynamicModule {
    const frontEnd = config.settings.general.front_end;
    const controllers: Type[] = [];
    if (routes.chat) controllers.push(createChatController(routes.chat, true, routes.chat));
    if (routes.legacyChat) controllers.push(createChatController(routes.legacyChat, false, routes.chat));
    if (routes.completions) {
      const interactive = frontEnd.enable_interactive_extensions;
      controllers.push(createCompletionsController(routes.completions, interactive, routes.chat));
    }
    return {
      module: OpenAiModule,
      imports: [ExecutionsModule, HttpExecutionsModule],
      controllers,
      providers: [ChatService, ChatFace],
    };
  }
}
