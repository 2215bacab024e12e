import { Module, type DynamicModule } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import { EvaluateItemController } from './evaluate-item.controller';
import { EvaluationModule } from './evaluation.module';

/** The `POST /evaluate/item` route, mounted at NAT's `front_end.evaluate_item.path` (null removes it). */
@Module({})
export class EvaluateItemRoutesModule {
  static forRoot(path: string | null): DynamicModule {
    if (path === null) return { module: EvaluateItemRoutesModule };
    return {
      module: EvaluateItemRoutesModule,
      imports: [EvaluationModule, RouterModule.register([{ path, module: EvaluateItemRoutesModule }])],
      controllers: [EvaluateItemController],
    };
  }
}
