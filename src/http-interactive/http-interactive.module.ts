import { Module, type DynamicModule } from '@nestjs/common';
import { ExecutionsModule } from '../executions/executions.module';
import { OAuthModule } from '../oauth/oauth.module';
import { ExecutionList } from './execution-list';
import { ExecutionListController } from './execution-list.controller';
import { ExecutionsController } from './executions.controller';
import { InteractionsController } from './interactions.controller';
import { createOAuthCallbackController } from './oauth-callback.controller';

/**
 * The HTTP interactive face: status polls, cancel, re-attached streams and answers under
 * `/executions`, and the OAuth callback at `general.front_end.oauth2_callback_path`.
 */
@Module({})
export class HttpInteractiveModule {
  static forRoot(oauth2CallbackPath: string): DynamicModule {
    return {
      module: HttpInteractiveModule,
      imports: [ExecutionsModule, OAuthModule],
      providers: [ExecutionList],
      controllers: [
        ExecutionListController,
        ExecutionsController,
        InteractionsController,
        createOAuthCallbackController(oauth2CallbackPath),
      ],
    };
  }
}
