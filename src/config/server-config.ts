import type { BuiltFunction } from '../runtime/function-type';
import type { AppConfig } from './config.loader';
import type { FrontEndConfig, GeneralConfig } from './config.schema';

/** The validated config, read through typed accessors. Provided once, globally, by ServerConfigModule. */
export class ServerConfig {
  constructor(readonly app: AppConfig) {}

  get general(): GeneralConfig {
    return this.app.settings.general;
  }

  get frontEnd(): FrontEndConfig {
    return this.app.settings.general.front_end;
  }

  get workflow(): BuiltFunction {
    return this.app.workflow;
  }

  get file(): string {
    return this.app.file;
  }
}
