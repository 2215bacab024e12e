import { Module, type DynamicModule } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import type { AppConfig } from '../../config/config.loader';
import { EvaluateItemController } from './evaluate-item.controller';
import { EvaluationModule } from './evaluation.module';

export const DEFAULT_EVALUATE_ITEM_PATH = '/evaluate/item';

/** Where `POST /evaluate/item` is served: NAT's `front_end.evaluate_item.path` (null removes it). */
export function evaluateItemPath(config: AppConfig): string | null {
  const configured = config.settings.general.front_end.evaluate_item;
  if (!configured) return DEFAULT_EVALUATE_ITEM_PATH;
  return configured.path === undefined ? DEFAULT_EVALUATE_ITEM_PATH : configured.path;
}

/** The `POST /evaluate/item` route, mounted at its configured path. */
@Module({})
export class EvaluateItemRoutesModule {
  static forRoot(config: AppConfig): DynamicModule {
    const path = evaluateItemPath(config);
    if (path === null) return { module: EvaluateItemRoutesModule };
    return {
      module: EvaluateItemRoutesModule,
      imports: [EvaluationModule, RouterModule.register([{ path, module: EvaluateItemRoutesModule }])],
      controllers: [EvaluateItemController],
    };
  }
}
