import { Module, type DynamicModule, type Type } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import { mountAt, mounted, type RouteMount } from '../core/http/route-mount';
import type { Routes } from '../core/http/route-paths';
import { ExecutionsModule } from '../executions/executions.module';
import { HttpRespondersModule } from '../http-responders/http-responders.module';
import { ChatFace } from './chat-face';
import { ChatRoute } from './chat-route';
import { ChatController, LegacyChatController } from './chat.controller';
import { ChatService } from './chat.service';
import { CompletionsController } from './completions.controller';

function chatMount(path: string, name: string, controller: Type, route: ChatRoute): RouteMount {
  return mountAt(path, name, {
    imports: [HttpRespondersModule],
    controllers: [controller],
    providers: [ChatService, { provide: ChatRoute, useValue: route }],
  });
}

/** Where the chat routes are served: `openai_api_path`, its legacy alias and `openai_api_v1_path`. */
export function chatMounts(config: AppConfig, routes: Routes): RouteMount[] {
  const mounts: RouteMount[] = [];
  if (routes.chat) {
    mounts.push(chatMount(routes.chat, 'ChatRoutes', ChatController, new ChatRoute(true, routes.chat)));
  }
  if (routes.legacyChat) {
    const route = new ChatRoute(false, routes.chat);
    mounts.push(chatMount(routes.legacyChat, 'LegacyChatRoutes', LegacyChatController, route));
  }
  if (routes.completions) {
    const interactive = config.settings.general.front_end.enable_interactive_extensions;
    const route = new ChatRoute(interactive, routes.chat);
    mounts.push(chatMount(routes.completions, 'CompletionsRoutes', CompletionsController, route));
  }
  return mounts;
}

/** The chat API (`/v1/chat*`, `/chat*`) and OpenAI's `/v1/chat/completions`. */
@Module({})
export class OpenAiModule {
  static forRoot(config: AppConfig, routes: Routes): DynamicModule {
    return {
      module: OpenAiModule,
      imports: [ExecutionsModule, ...mounted(chatMounts(config, routes))],
      providers: [ChatFace],
    };
  }
}
