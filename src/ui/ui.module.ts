import { Module, type DynamicModule } from '@nestjs/common';
import { PageFiles, type PageSettings } from './page-files';
import { PageSession } from './page-session.provider';
import { UiController } from './ui.controller';
import { mountAt, mounted } from '../core/http/route-mount';

/** The built-in page (chat, every prompt type, approvals inbox) at `general.front_end.ui_path`. */
@Module({})
export class UiModule {
  static forRoot(path: string, settings: PageSettings): DynamicModule {
    const routes = mountAt(path, 'UiRoutes', {
      controllers: [UiController],
      providers: [{ provide: PageFiles, useFactory: () => new PageFiles(settings) }, PageSession],
    });
    return { module: UiModule, imports: mounted([routes]) };
  }
}
