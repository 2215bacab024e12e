import { Module, type DynamicModule } from '@nestjs/common';
import { mountAt, mounted } from '../core/http/route-mount';
import { ExecutionsModule } from '../executions/executions.module';
import { OAuthModule } from '../oauth/oauth.module';
import { ExecutionList } from './execution-list';
import { ExecutionListController } from './execution-list.controller';
import { ExecutionsController } from './executions.controller';
import { InteractionsController } from './interactions.controller';
import { OAuthCallbackController } from './oauth-callback.controller';

/**
 * The HTTP interactive face: status polls, cancel, re-attached streams and answers under
 * `/executions`, and the OAuth callback at `general.front_end.oauth2_callback_path`.
 */
@Module({})
export class HttpInteractiveModule {
  static forRoot(oauth2CallbackPath: string): DynamicModule {
    const callback = mountAt(oauth2CallbackPath, 'OAuthCallbackRoutes', {
      imports: [OAuthModule],
      controllers: [OAuthCallbackController],
    });
    return {
      module: HttpInteractiveModule,
      imports: [ExecutionsModule, OAuthModule, ...mounted([callback])],
      providers: [ExecutionList],
      controllers: [ExecutionListController, ExecutionsController, InteractionsController],
    };
  }
}
