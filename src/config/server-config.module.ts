import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from './config.loader';
import { AuthConfig } from '../core/identity/auth.config';
import { ServerConfig } from './server-config';

/**
 * The validated config file (not @nestjs/config: no .env loading, no ConfigService.get by string).
 * Global because every layer reads its section.
 */
@Global()
@Module({})
export class ServerConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    const serverConfig = new ServerConfig(config);
    return {
      module: ServerConfigModule,
      providers: [
        { provide: ServerConfig, useValue: serverConfig },
        // core/ reads its own section without knowing the rest of the config.
        { provide: AuthConfig, useValue: serverConfig.general.auth },
      ],
      exports: [ServerConfig, AuthConfig],
    };
  }
}
