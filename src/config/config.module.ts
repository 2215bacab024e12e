import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from './config.loader';
import { ServerConfig } from './server-config';

@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: ServerConfig, useValue: new ServerConfig(config) }],
      exports: [ServerConfig],
    };
  }
}
