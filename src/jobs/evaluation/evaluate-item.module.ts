import { Module, type DynamicModule } from '@nestjs/common';
import { EvaluateItemController } from './evaluate-item.controller';
import { EvaluationModule } from './evaluation.module';
import { mountAt, mounted } from '../../core/http/route-mount';

/** The `POST /evaluate/item` route, mounted at NAT's `front_end.evaluate_item.path` (null removes it). */
@Module({})
export class EvaluateItemRoutesModule {
  static forRoot(path: string | null): DynamicModule {
    if (path === null) return { module: EvaluateItemRoutesModule };
    const routes = mountAt(path, 'EvaluateItemRoutes', {
      imports: [EvaluationModule],
      controllers: [EvaluateItemController],
    });
    return { module: EvaluateItemRoutesModule, imports: mounted([routes]) };
  }
}
